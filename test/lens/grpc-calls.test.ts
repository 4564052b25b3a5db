import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Capture, HttpRow } from '../../src/capture/types';
import { runChild, startChild, waitForLine } from '../helpers/child';
import { launchBrowser, openPage } from '../dashboard/harness';
import { cleanEnv, installPinned, pinsKey } from '../helpers/pinned';

/**
 * gRPC calls as calls of their own, with Probe installed from its packed tarball in an app of its own beside a
 * pinned @grpc/grpc-js: a real grpc-js server on loopback (here) answers a unary OK, a unary NOT_FOUND and a server
 * stream. Each row says its service and method, its gRPC status by number and name (failed unless OK), and, in the
 * app's first run (no learned-hops file), the app's line: the line an Error made at each call points to.
 */
// A browser global used inside a page callback (tests are type-checked without the DOM lib).
declare const document: { querySelectorAll(selector: string): { length: number } };

const CACHE = process.env.PROBE_GRPC_CACHE ?? path.join(os.homedir(), '.cache', 'probe-grpc');
const PINS = { '@grpc/grpc-js': '1.14.7' };

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const method = (pathname: string, responseStream: boolean) => ({
  path: pathname,
  requestStream: false,
  responseStream,
  requestSerialize: json.serialize,
  requestDeserialize: json.deserialize,
  responseSerialize: json.serialize,
  responseDeserialize: json.deserialize,
});

/** The app's client, a generated one (makeGenericClientConstructor, as loadPackageDefinition makes them). */
const CLIENT = (load: string) => `${load}
const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString()) };
const m = (path, responseStream) => ({ path, requestStream: false, responseStream, requestSerialize: json.serialize,
  requestDeserialize: json.deserialize, responseSerialize: json.serialize, responseDeserialize: json.deserialize });
const Users = grpc.makeGenericClientConstructor({ GetUser: m('/users.Users/GetUser', false), ListUsers: m('/users.Users/ListUsers', true) });
const client = new Users(process.env.GRPC_ADDRESS, grpc.credentials.createInsecure());
const oracle = (name, error) => console.log('ORACLE ' + name + ' ' + error.stack.split('\\n')[1].trim());
const get = (id) => new Promise((resolve) => {
  oracle(id, new Error()); client.GetUser({ id }, (err, user) => { console.log(id + ' ' + (err ? err.code : '0 ' + user.name)); resolve(); });
});
const list = () => new Promise((resolve) => {
  oracle('list', new Error()); const stream = client.ListUsers({});
  stream.on('data', (user) => console.log('list ' + user.name));
  stream.on('status', (status) => console.log('list status ' + status.code));
  stream.on('end', resolve);
  stream.on('error', resolve);
});
// Made at once while the channel is not connected yet: each waits in the channel's queue, and the one connection
// event starts them all.
await Promise.all([
  new Promise((resolve) => { oracle('at-once-ada', new Error()); client.GetUser({ id: 'ada' }, resolve); }),
  new Promise((resolve) => { oracle('at-once-nobody', new Error()); client.GetUser({ id: 'nobody' }, resolve); }),
  new Promise((resolve) => { oracle('at-once-list', new Error()); const stream = client.ListUsers({}); stream.on('data', () => {}); stream.on('end', resolve); }),
]);
await get('ada');
await get('nobody');
await list();
client.close();
`;

/**
 * An HTTP server whose two requests each make a gRPC call, at once, while the channel is not connected yet (each
 * request waits for the other first): every call's row belongs to the request that made it.
 */
const SERVER = `
const http = require('node:http');
const grpc = require('@grpc/grpc-js');
const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString()) };
const Users = grpc.makeGenericClientConstructor({ GetUser: { path: '/users.Users/GetUser', requestStream: false, responseStream: false,
  requestSerialize: json.serialize, requestDeserialize: json.deserialize, responseSerialize: json.serialize, responseDeserialize: json.deserialize } });
const client = new Users(process.env.GRPC_ADDRESS, grpc.credentials.createInsecure());
let arrived = 0;
let both;
const bothArrived = new Promise((resolve) => (both = resolve));
const server = http.createServer(async (req, res) => {
  if (++arrived === 2) both();
  await bothArrived;
  client.GetUser({ id: req.url.slice(1) }, (err) => res.end(err ? String(err.code) : 'ok'));
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => { client.close(); server.close(() => process.exit(0)); });
`;

const APPS: Record<string, string> = {
  'server.cjs': SERVER,
  'client.cjs': `const grpc = require('@grpc/grpc-js');\n(async () => {\n${CLIENT('')}})();\n`,
  'client.mjs': CLIENT("import grpc from '@grpc/grpc-js';"),
};

/** `file:line` of each `ORACLE <name> at <file>:<line>:<column>` the app printed. */
function oracles(stdout: string, app: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of stdout.matchAll(/^ORACLE (\S+) .*?\(?((?:file:\/\/)?\/[^\s()]+):(\d+):\d+\)?$/gm)) {
    const file = match[2]!.replace(/^file:\/\//, '');
    found.set(match[1]!, `${path.relative(fs.realpathSync(app), fs.realpathSync(file))}:${match[3]}`);
  }
  return found;
}

function httpRows(app: string): HttpRow[] {
  const dir = path.join(app, '.probe', 'captures');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { capture: Capture }).capture.sections.http ?? []);
}

describe('gRPC calls (@grpc/grpc-js, Probe from its tarball)', { timeout: 900_000 }, () => {
  let server: grpc.Server;
  let address = '';
  let app = '';
  before(async () => {
    server = new grpc.Server();
    server.addService(
      { GetUser: method('/users.Users/GetUser', false), ListUsers: method('/users.Users/ListUsers', true) },
      {
        GetUser: (call: grpc.ServerUnaryCall<{ id: string }, unknown>, done: grpc.sendUnaryData<unknown>) =>
          call.request.id === 'ada' ? done(null, { name: 'Ada' }) : done({ code: grpc.status.NOT_FOUND, details: `no user ${call.request.id}` }),
        ListUsers: (call: grpc.ServerWritableStream<unknown, unknown>) => {
          call.write({ name: 'Ada' });
          call.write({ name: 'Bob' });
          call.end();
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    address = `127.0.0.1:${port}`;
    app = await installPinned({
      dir: path.join(CACHE, `grpc-${pinsKey(PINS)}`),
      package: { name: 'grpc-app', dependencies: PINS },
      probe: true,
      prepare: (dir) => {
        for (const [name, text] of Object.entries(APPS)) fs.writeFileSync(path.join(dir, name), text);
      },
    });
  });
  after(() => server?.forceShutdown());

  for (const script of ['client.cjs', 'client.mjs']) {
    it(`${script}: service/method, the gRPC status by number and name, and the app's line from the first call`, async () => {
      for (const [name, text] of Object.entries(APPS)) fs.writeFileSync(path.join(app, name), text);
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      const env = { ...cleanEnv(), GRPC_ADDRESS: address };
      const baseline = await runChild(process.execPath, [script], { cwd: app, env });
      assert.equal(baseline.code, 0, baseline.stderr);
      const result = await runChild(process.execPath, [script], { cwd: app, env: { ...env, NODE_OPTIONS: '--require probe/register' } });
      assert.equal(result.code, 0, result.stderr);
      const answers = (out: string) => out.split('\n').filter((line) => line && !line.startsWith('ORACLE'));
      assert.deepEqual(answers(result.stdout), answers(baseline.stdout), 'the app gets the same answers with Probe');
      // The oracle: what the client itself got.
      assert.deepEqual(answers(result.stdout), ['ada 0 Ada', `nobody ${grpc.status.NOT_FOUND}`, 'list Ada', 'list Bob', `list status ${grpc.status.OK}`]);

      const rows = httpRows(app).filter((row) => row.grpc);
      const expected = oracles(result.stdout, app);
      const brief = (row: HttpRow) => `${row.grpc?.method} ${row.grpc_status?.name} ${row.origin ? `${row.origin.file}:${row.origin.line}` : null}`;
      // The calls made at once: each has its own line, not the line of the call whose context connected the channel.
      assert.deepEqual(rows.slice(0, 3).map(brief).sort(), [
        `GetUser NOT_FOUND ${expected.get('at-once-nobody')}`,
        `GetUser OK ${expected.get('at-once-ada')}`,
        `ListUsers OK ${expected.get('at-once-list')}`,
      ]);
      assert.deepEqual(
        rows.slice(3).map((row) => ({
          grpc: row.grpc,
          status: row.status,
          code: row.grpc_status?.code,
          name: row.grpc_status?.name,
          failed: row.failed,
          origin: row.origin ? `${row.origin.file}:${row.origin.line}` : null,
        })),
        [
          { grpc: { service: 'users.Users', method: 'GetUser' }, status: 200, code: 0, name: 'OK', failed: false, origin: expected.get('ada') },
          { grpc: { service: 'users.Users', method: 'GetUser' }, status: 200, code: 5, name: 'NOT_FOUND', failed: true, origin: expected.get('nobody') },
          { grpc: { service: 'users.Users', method: 'ListUsers' }, status: 200, code: 0, name: 'OK', failed: false, origin: expected.get('list') },
        ],
      );
      assert.ok(
        expected.size === 6 && new Set(['at-once-ada', 'at-once-nobody', 'at-once-list'].map((name) => expected.get(name))).size === 3,
        JSON.stringify([...expected]),
      );
      assert.ok(
        [...expected.values()].every((at) => at.startsWith(`${script}:`)),
        JSON.stringify([...expected]),
      );
      // The lines came from the entry points, not from a list learned by an earlier run.
      assert.equal(fs.existsSync(path.join(app, '.probe', 'learned-hops.json')), false);

      // The CLI of the installed package: the status by number and name, a filter on the method.
      const cli = (args: string[]) =>
        runChild(process.execPath, [path.join(app, 'node_modules', 'probe', 'dist', 'cli', 'main.js'), ...args], { cwd: app, env });
      const listed = await cli(['rows', '--id', '*', '--where', 'grpc.method=GetUser']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /4 of 4 matching/);
      assert.match(listed.stdout, /\b200 gRPC 0 OK\b/);
      assert.match(listed.stdout, /\b200 gRPC 5 NOT_FOUND\b/);
      const shown = await cli(['show']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /HTTP call failed: POST http:\/\/127\.0\.0\.1:\d+\/users\.Users\/GetUser \(200, gRPC 5 NOT_FOUND\)/);
      assert.match(shown.stdout, /200 gRPC 0 OK .*\/users\.Users\/ListUsers/);
    });
  }
  it("the dashboard (real Chromium) shows each gRPC row's status by number and name, and its method", async () => {
    // The captures of the last run above, served by the installed package's dashboard.
    const [file] = fs.readdirSync(path.join(app, '.probe', 'captures')).filter((name) => name.endsWith('.json'));
    const { capture } = JSON.parse(fs.readFileSync(path.join(app, '.probe', 'captures', file!), 'utf8')) as { capture: Capture };
    const child = startChild(process.execPath, [path.join(app, 'node_modules', 'probe', 'dist', 'cli', 'main.js'), 'dashboard', '--port', '0'], {
      cwd: app,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = (await waitForLine(child, /^Probe dashboard: (http:\/\/\S+)$/m))[1]!;
    const browser = await launchBrowser();
    try {
      const { page, errors } = await openPage(browser);
      await page.goto(`${url}#/captures/${capture.id}/http`);
      await page.waitForSelector('[data-testid=http-tab]');
      const badges = await page.locator('[data-testid=http-row] [data-testid=grpc-status]').allTextContents();
      assert.deepEqual(badges.slice(3), ['gRPC 0 OK', 'gRPC 5 NOT_FOUND', 'gRPC 0 OK']);
      await page.locator('[data-testid=http-row]').nth(4).click();
      const detail = page.locator('[data-testid=row-detail]');
      assert.equal(await detail.locator('[data-testid=grpc-method]').textContent(), 'users.Users/GetUser');
      assert.equal(await detail.locator('[data-testid=grpc-status]').textContent(), 'gRPC 5 NOT_FOUND');
      assert.match((await detail.textContent()) ?? '', /no user nobody/);
      // The filter finds a call by its gRPC status.
      await page.fill('[data-testid=http-filter]', 'not_found');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=http-row]').length === 2);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      child.kill('SIGTERM');
    }
  });

  it('calls made at once by two requests, while the channel connects: each row is in the capture of the request that made it', async () => {
    fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
    const child = startChild(process.execPath, ['server.cjs'], {
      cwd: app,
      env: { ...cleanEnv(), GRPC_ADDRESS: address, NODE_OPTIONS: '--require probe/register' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const port = (await waitForLine(child, /listening (\d+)/))[1];
    const answers = await Promise.all(['ada', 'nobody'].map(async (id) => (await fetch(`http://127.0.0.1:${port}/${id}`)).text()));
    assert.deepEqual(answers, ['ok', String(grpc.status.NOT_FOUND)]);
    const exited = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await exited;
    const dir = path.join(app, '.probe', 'captures');
    const requests = fs
      .readdirSync(dir)
      .map((file) => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { capture: Capture }).capture)
      .filter((capture) => capture.type === 'request')
      .map((capture) => `${capture.name}: ${((capture.sections.http ?? []) as HttpRow[]).map((row) => row.grpc_status?.name).join(', ')}`);
    assert.deepEqual(requests.sort(), ['GET /ada: OK', 'GET /nobody: NOT_FOUND']);
  });
});
