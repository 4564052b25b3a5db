// A user's mask that never returns and a user's name pattern that backtracks without end (`(a+)+$` on `aaaa…!`) hold
// neither the app nor its exit: they run on a thread of their own under a deadline, the values they had to decide are
// stored masked whole, and the app says so in one line per setting. Real apps under the preload: a server that keeps
// answering, and a script that ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp, eventually, waitForLine } from '../helpers/app';
import type { HttpRow } from '../../src/capture/types';

const CONFIG = `
module.exports = {
  mask: {
    headers: {
      'x-tenant': { mask() { for (;;) {} } },
      'x-plain': { mask(value) { return 'len:' + value.length; } },
    },
    inputs: [/(a+)+$/],
  },
};
`;

/** Past this a request that got no answer is taken as held for good (a limit against hangs, not a speed check). */
const HANG = 120_000;

/** A query name that makes `(a+)+$` backtrack for longer than anyone waits. */
const UNLUCKY = `${'a'.repeat(48)}!`;

const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok ' + req.url.length));
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

const SCRIPT = `
const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', async () => {
  const url = 'http://127.0.0.1:' + server.address().port;
  const answer = await fetch(url + '/call?${UNLUCKY}=tenant-secret&page=2', { headers: { 'x-tenant': 'acme-secret', 'x-plain': 'hello' } });
  console.log('answered ' + (await answer.text()));
  server.close();
});
`;

function storedText(app: TestApp): string {
  const folder = path.join(app.dir, '.probe', 'captures');
  return readdirSync(folder)
    .map((file) => readFileSync(path.join(folder, file), 'utf8'))
    .join('\n');
}

test('a mask that never returns and a backtracking pattern: the server keeps answering, the values are masked', async () => {
  const app = new TestApp({ 'server.js': SERVER, 'probe.config.js': CONFIG });
  const child = app.spawn('server.js');
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [, port] = await waitForLine(child, /listening (\d+)/);
  const base = `http://127.0.0.1:${port}`;
  // Each request's capture calls both user parts; the server answers every one, and then still answers.
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/r${i}?${UNLUCKY}=tenant-secret&page=2`, {
      headers: { 'x-tenant': 'acme-secret', 'x-plain': 'hello' },
      signal: AbortSignal.timeout(HANG),
    });
    assert.equal(res.status, 200);
  }
  const captures = await eventually(() => {
    const found = app.captures().filter((c) => c.type === 'request');
    return found.length === 3 && found;
  });
  assert.equal(await fetch(`${base}/after`, { signal: AbortSignal.timeout(HANG) }).then((r) => r.status), 200);
  child.kill();
  for (const capture of captures) {
    const request = capture.sections.request!;
    assert.equal(request.headers['x-tenant'], '********');
    // A mask that answers still decides its header.
    assert.equal(request.headers['x-plain'], 'len:5');
    assert.match(request.url, /\?a{48}(!|%21)=\*{8}&page=2$/);
  }
  assert.doesNotMatch(storedText(app), /acme-secret|tenant-secret/);
  assert.match(stderr, /mask\.headers\.x-tenant: the mask did not return within \d+ s; such values are stored as \*{8}/);
  assert.match(stderr, /mask\.inputs: .*did not return within \d+ s/);
});

test('a script whose capture calls a never-returning mask still ends, its output and exit code as without Probe', async () => {
  const app = new TestApp({ 'script.js': SCRIPT, 'probe.config.js': CONFIG });
  const without = await app.run('script.js', { preload: 'none' });
  const run = await app.run('script.js', { timeout: HANG });
  assert.equal(run.code, without.code, run.stderr);
  assert.equal(run.stdout, without.stdout);
  const rows = app.captures().flatMap((c) => (c.sections.http as HttpRow[] | undefined) ?? []);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.request_headers['x-tenant'], '********');
  assert.equal(rows[0]!.request_headers['x-plain'], 'len:5');
  assert.doesNotMatch(storedText(app), /acme-secret|tenant-secret/);
});

test('an except RegExp that backtracks without end: the server keeps answering, the capture is kept; a name it matches is kept out', async () => {
  const app = new TestApp({ 'server.js': SERVER, 'probe.config.js': `module.exports = { except: [/^GET \\/(a+)+$/] };` });
  const child = app.spawn('server.js');
  const [, port] = await waitForLine(child, /listening (\d+)/);
  const base = `http://127.0.0.1:${port}`;
  // Matched at once: kept out. Then the unlucky name, then a request after it: all answered.
  for (const path of ['/aaaa', `/${UNLUCKY}`, '/after']) {
    const res = await fetch(base + path, { signal: AbortSignal.timeout(HANG) });
    assert.equal(res.status, 200, path);
  }
  const names = await eventually(() => {
    const found = app.captures().filter((c) => c.type === 'request');
    return found.some((c) => c.name === 'GET /after') && found.map((c) => c.name);
  });
  assert.ok(!names.includes('GET /aaaa'), `kept out: ${names.join(', ')}`);
  assert.ok(
    names.some((name) => name.startsWith('GET /aaaa') && name.length > 40),
    `the unlucky name is recorded: ${names.join(', ')}`,
  );
  child.kill();
});
