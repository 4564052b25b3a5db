import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { announceServer, isOwnServer, ownServers } from '../../src/runtime/ownServers';
import { readHandlers } from '../../src/lens/routes/nitroRoutes';

test("a call's target is one of the app's servers: same unix socket path; same TCP port on loopback, bound there or to every interface", () => {
  const servers = [
    { kind: 'unix' as const, at: '\0nitro-worker-1.sock' },
    { kind: 'tcp' as const, at: '3000', host: '::' },
    { kind: 'tcp' as const, at: '4000', host: '127.0.0.1' },
  ];
  assert.equal(isOwnServer({ kind: 'unix', at: '\0nitro-worker-1.sock' }, servers), true);
  assert.equal(isOwnServer({ kind: 'unix', at: '/tmp/other.sock' }, servers), false);
  assert.equal(isOwnServer({ kind: 'tcp', at: '3000', host: '127.0.0.1' }, servers), true);
  assert.equal(isOwnServer({ kind: 'tcp', at: '3000', host: '::1' }, servers), true);
  assert.equal(isOwnServer({ kind: 'tcp', at: '4000', host: '::ffff:127.0.0.1' }, servers), true);
  // Another machine's port 3000 is not this app's server.
  assert.equal(isOwnServer({ kind: 'tcp', at: '3000', host: '10.0.0.7' }, servers), false);
  assert.equal(isOwnServer({ kind: 'tcp', at: '5000', host: '127.0.0.1' }, servers), false);
});

test("Nitro's handler table as its build writes it: routes with their method, middleware left out; no table, null", () => {
  const text = [
    'const x = 1;',
    'const handlers = [',
    "  { route: '', handler: _k1Sfl2, lazy: false, middleware: true, method: undefined },",
    '  { route: \'/api/items/:id\', handler: _lazy_YC7WuQ, lazy: true, middleware: false, method: "get" },',
    "  { route: '/api/files/**:path', handler: _lazy_$a, lazy: true, middleware: false, method: undefined },",
    "  { route: '/**', handler: _lazy_5X42CJ, lazy: true, middleware: false, method: undefined }",
    '];',
  ].join('\n');
  assert.deepEqual(readHandlers(text), [
    { route: '/api/items/:id', method: 'get' },
    { route: '/api/files/**:path', method: 'all' },
    { route: '/**', method: 'all' },
  ]);
  assert.equal(readHandlers('export default {}'), null);
});

/** A server as announceServer sees it: only its address. */
const serverOn = (port: number) => ({ address: () => ({ port, address: '127.0.0.1', family: 'IPv4' }) });

test('the list of servers: never written through a link put in place of .probe/servers; lists of ended processes removed', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-servers-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-outside-'));
  fs.mkdirSync(path.join(root, '.probe'), { mode: 0o700 });
  fs.symlinkSync(outside, path.join(root, '.probe', 'servers'));
  announceServer(root, serverOn(40001));
  assert.deepEqual(fs.readdirSync(outside), []);

  fs.rmSync(path.join(root, '.probe', 'servers'));
  fs.mkdirSync(path.join(root, '.probe', 'servers'), { mode: 0o700 });
  // A process that ended (pid beyond the kernel's range) left its list.
  const ended = path.join(root, '.probe', 'servers', '4194305-0.json');
  fs.writeFileSync(ended, JSON.stringify({ pid: 4194305, servers: [{ kind: 'tcp', at: '40002' }] }));
  const other = serverOn(40003);
  announceServer(root, other);
  assert.equal(fs.existsSync(ended), false);
  const mine = fs.readdirSync(path.join(root, '.probe', 'servers'));
  assert.deepEqual(mine, [`${process.pid}-0.json`]);
  assert.equal(fs.statSync(path.join(root, '.probe', 'servers', mine[0]!)).mode & 0o777, 0o600);
  assert.ok(ownServers(root).some((server) => server.at === '40003'));
});
