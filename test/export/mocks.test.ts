import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import { mockCallsOf } from '../../src/export/mockCalls';
import type { HttpRow } from '../../src/capture/types';
import { fixtureCaptures } from '../fixtures/captures/fixtures';

/** The app's calls, the same under Probe and under each mock library. Prints status and body of each. */
const CALLS = `
module.exports = async function calls(base) {
  const out = [];
  const take = async (res) => out.push({ status: res.status, type: res.headers.get('content-type'), body: await res.text() });
  await take(await fetch(base + '/users'));
  await take(await fetch(base + '/counter'));
  await take(await fetch(base + '/counter'));
  await take(await fetch(base + '/items', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'lamp' }) }));
  await take(await fetch(base + '/missing'));
  await take(await fetch(base + '/hello'));
  await take(await fetch(base + '/secret'));
  await take(await fetch(base + '/empty', { method: 'DELETE' }));
  return out;
};
`;

const REPLAYS: Record<string, string> = {
  'record.cjs': `require('./calls.cjs')(process.env.BASE).then((out) => console.log(JSON.stringify(out)));`,
  'replay-msw.mjs': `
import { setupServer } from 'msw/node';
import { createRequire } from 'node:module';
import { handlers } from './handlers.mjs';
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: 'error' });
const out = await createRequire(import.meta.url)('./calls.cjs')(process.env.BASE);
server.close();
console.log(JSON.stringify(out));
`,
  'replay-nock.cjs': `
const nock = require('nock');
nock.disableNetConnect();
nock.define(require('./nock.json'));
require('./calls.cjs')(process.env.BASE).then((out) => console.log(JSON.stringify(out)));
`,
  'replay-undici.cjs': `
const { SnapshotAgent, setGlobalDispatcher } = require('undici');
setGlobalDispatcher(new SnapshotAgent({ mode: 'playback', snapshotPath: 'snapshots.json', matchHeaders: ['content-type'], matchBody: false }));
require('./calls.cjs')(process.env.BASE).then((out) => console.log(JSON.stringify(out)));
`,
};

function startUpstream(): Promise<{ base: string; close: () => Promise<void> }> {
  let counter = 0;
  const server = http.createServer((req, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify(value));
    };
    req.resume();
    req.on('end', () => {
      if (req.url === '/users') return json(200, [{ id: 1, name: 'Ada' }]);
      if (req.url === '/counter') return json(200, { n: ++counter });
      if (req.url === '/items') return json(201, { id: 7, name: 'lamp' });
      if (req.url === '/secret') return json(200, { user: 'ada', token: 'tok-very-secret' });
      if (req.url === '/hello') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('hello there');
      }
      if (req.url === '/empty') {
        res.writeHead(204);
        return res.end();
      }
      json(404, { error: 'nope' });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

describe('probe export --msw / --nock / --undici-snapshot: a recorded run replayed offline by the real libraries', { timeout: 120_000 }, () => {
  const app = new TestApp({ 'calls.cjs': CALLS, ...REPLAYS, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }) });
  let recorded: Array<{ status: number; type: string | null; body: string }>;
  let base: string;
  before(async () => {
    const upstream = await startUpstream();
    base = upstream.base;
    const run = await app.run('record.cjs', { env: { BASE: base } });
    assert.equal(run.code, 0, run.stderr);
    recorded = JSON.parse(run.stdout);
    // The real upstream is gone: a call no mock answers fails.
    await upstream.close();
  });

  // What replays: the recorded answers, with the value Probe masked still masked.
  const expected = () =>
    recorded.map((call) => (call.body.includes('tok-very-secret') ? { ...call, body: call.body.replace('tok-very-secret', '********') } : call));

  for (const [flag, file, script] of [
    ['--msw', 'handlers.mjs', 'replay-msw.mjs'],
    ['--nock', 'nock.json', 'replay-nock.cjs'],
    ['--undici-snapshot', 'snapshots.json', 'replay-undici.cjs'],
  ] as const) {
    test(`${flag}: same statuses and bodies, masked values masked`, async () => {
      const exported = await app.cli(['export', flag, '--out', file]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stderr, /8 calls of capture \S+, record\.cjs written to/);
      const text = readFileSync(path.join(app.dir, file), 'utf8');
      assert.ok(!text.includes('tok-very-secret'), 'the secret stays masked');
      const replay = await app.run(script, { preload: 'none', env: { BASE: base } });
      assert.equal(replay.code, 0, replay.stderr);
      const got = JSON.parse(replay.stdout) as typeof recorded;
      assert.deepEqual(
        got.map((call) => [call.status, call.body]),
        expected().map((call) => [call.status, call.body]),
      );
      assert.deepEqual(
        got.map((call) => call.type?.split(';')[0] ?? null),
        expected().map((call) => call.type?.split(';')[0] ?? null),
      );
    });
  }

  test('export from several captures (*, --where), and one format at a time', async () => {
    const failing = await app.cli(['export', '*', '--nock', '--where', 'status>=400']);
    assert.equal(failing.code, 0, failing.stderr);
    const defs = JSON.parse(failing.stdout);
    assert.deepEqual(
      defs.map((def: { method: string; path: string; status: number; response: unknown }) => [def.method, def.path, def.status, def.response]),
      [['GET', '/missing', 404, { error: 'nope' }]],
    );
    const two = await app.cli(['export', '--msw', '--nock']);
    assert.equal(two.code, 2);
    assert.match(two.stderr, /one format at a time/);
  });
});

test('mockCallsOf: calls without a response, cut or not kept are left out with the reason; framing headers dropped', () => {
  const [order] = fixtureCaptures();
  const rows = (order!.sections.http as HttpRow[]).map((row, index) => ({ capture: order!, row, index }));
  rows.push({ capture: order!, index: 3, row: { ...rows[0]!.row, truncated: true } });
  rows[0]!.row = { ...rows[0]!.row, response_headers: { 'content-type': 'application/json', 'content-length': '24', 'transfer-encoding': 'chunked' } };
  const { calls, left_out } = mockCallsOf(rows);
  assert.deepEqual(
    calls.map((call) => [call.status, call.json, call.headers]),
    [[200, { id: 42, state: 'paid' }, [['content-type', 'application/json']]]],
  );
  assert.deepEqual(
    left_out.map((call) => [call.row, call.reason]),
    [
      [1, 'body not kept (the bodies option keeps bodies no response capture shows)'],
      [2, 'no response (fetch failed)'],
      [3, 'body cut at max_body_bytes'],
    ],
  );
});
