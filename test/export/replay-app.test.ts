// Issue 29: a recorded app run, exported by the real CLI in each mock format, replayed offline by the real
// library (MSW 2 setupServer, nock 14 define, undici 7 SnapshotAgent in playback), prints the same output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import { harErrors } from './har-schema';

/** A 1×1 PNG: bytes that are not UTF-8, so only a binary body replays them. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** The app: each call's status, type and body (text as text, bytes as hex), one line each. */
const APP = `
module.exports = async function run(base) {
  const lines = [];
  const show = async (res) => {
    const type = res.headers.get('content-type');
    const bytes = Buffer.from(await res.arrayBuffer());
    const body = /^(image|application\\/octet-stream)/.test(type ?? '') ? 'hex ' + bytes.toString('hex') : bytes.toString('utf8');
    lines.push(res.status + ' ' + type + ' ' + body);
  };
  await show(await fetch(base + '/users'));
  await show(await fetch(base + '/readme.txt'));
  await show(await fetch(base + '/logo.png'));
  await show(await fetch(base + '/blob'));
  await show(await fetch(base + '/missing'));
  await show(await fetch(base + '/items', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'lamp' }) }));
  return lines.join('\\n') + '\\n';
};
`;

const SCRIPTS: Record<string, string> = {
  'record.cjs': `require('./app.cjs')(process.env.BASE).then((out) => process.stdout.write(out));`,
  'replay-msw.mjs': `
import { setupServer } from 'msw/node';
import { createRequire } from 'node:module';
import { handlers } from './handlers.mjs';
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: 'error' });
const out = await createRequire(import.meta.url)('./app.cjs')(process.env.BASE);
server.close();
process.stdout.write(out);
`,
  'replay-nock.cjs': `
const nock = require('nock');
nock.disableNetConnect();
nock.define(require('./nock.json'));
require('./app.cjs')(process.env.BASE).then((out) => process.stdout.write(out));
`,
  'replay-undici.cjs': `
const { SnapshotAgent, setGlobalDispatcher } = require('undici');
setGlobalDispatcher(new SnapshotAgent({ mode: 'playback', snapshotPath: 'snapshots.json', matchHeaders: ['content-type'], matchBody: false }));
require('./app.cjs')(process.env.BASE).then((out) => process.stdout.write(out));
`,
};

function startUpstream(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    req.resume();
    req.on('end', () => {
      if (req.url === '/users') return send(200, 'application/json', JSON.stringify([{ id: 1, name: 'Ada' }]));
      if (req.url === '/readme.txt') return send(200, 'text/plain; charset=utf-8', 'plain words, ünïcode ✓\n');
      if (req.url === '/logo.png') return send(200, 'image/png', PNG);
      if (req.url === '/blob') return send(200, 'application/octet-stream', Buffer.from([0, 255, 1, 254, 0x80, 0x7f]));
      if (req.url === '/items' && req.method === 'POST') return send(201, 'application/json', JSON.stringify({ id: 7, name: 'lamp' }));
      send(404, 'application/json', JSON.stringify({ error: 'nope' }));
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

describe('a recorded app run replayed offline from each export gives the same output, binary bodies included', { timeout: 180_000 }, () => {
  const app = new TestApp({ 'app.cjs': APP, ...SCRIPTS, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }) });
  let recorded: string;
  let base: string;
  let close: (() => Promise<void>) | null = null;
  before(async () => {
    const upstream = await startUpstream();
    base = upstream.base;
    close = upstream.close;
    const run = await app.run('record.cjs', { env: { BASE: base } });
    assert.equal(run.code, 0, run.stderr);
    recorded = run.stdout;
    assert.match(recorded, new RegExp(`image/png hex ${PNG.toString('hex')}`));
    // Offline from here: a call no mock answers fails.
    await upstream.close();
    close = null;
  });
  after(() => close?.());

  test('the capture keeps the PNG and the octet-stream body as base64, the text as text', () => {
    const rows = app.captures().flatMap((capture) => capture.sections.http ?? []);
    const png = rows.find((row) => row.url.endsWith('/logo.png'))!;
    assert.equal(png.response_body_base64, PNG.toString('base64'));
    // As stored, the bytes once: readers get `response_body` as text beside them, as before.
    const stored = readFileSync(
      path.join(
        app.dir,
        '.probe',
        'captures',
        readdirSync(path.join(app.dir, '.probe', 'captures')).find((name) => name.endsWith('.json'))!,
      ),
      'utf8',
    );
    assert.equal(stored.split(PNG.toString('base64')).length, 2);
    assert.match(stored, /"response_body":null,"response_body_base64":/);
    const text = rows.find((row) => row.url.endsWith('/readme.txt'))!;
    assert.equal(text.response_body, 'plain words, ünïcode ✓\n');
    assert.equal(text.response_body_base64, undefined);
  });

  for (const [flag, file, script] of [
    ['--msw', 'handlers.mjs', 'replay-msw.mjs'],
    ['--nock', 'nock.json', 'replay-nock.cjs'],
    ['--undici-snapshot', 'snapshots.json', 'replay-undici.cjs'],
  ] as const) {
    test(`${flag}: the replayed run prints byte for byte what the recorded run printed`, async () => {
      const exported = await app.cli(['export', flag, '--out', file]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stderr, /6 calls of capture \S+, record\.cjs written to/);
      assert.doesNotMatch(exported.stderr, /left out/);
      assert.ok(readFileSync(path.join(app.dir, file), 'utf8').length > 0);
      const replay = await app.run(script, { preload: 'none', env: { BASE: base } });
      assert.equal(replay.code, 0, replay.stderr);
      assert.equal(replay.stdout, recorded);
    });
  }

  test('HAR: binary bodies as base64 with encoding "base64"', async () => {
    const exported = await app.cli(['export', '--har']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(harErrors(JSON.parse(exported.stdout)), []);
    const har = JSON.parse(exported.stdout) as {
      log: { entries: Array<{ request: { url: string }; response: { content: { text?: string; encoding?: string } } }> };
    };
    const content = (end: string) => har.log.entries.find((entry) => entry.request.url.endsWith(end))!.response.content;
    assert.deepEqual([content('/logo.png').text, content('/logo.png').encoding], [PNG.toString('base64'), 'base64']);
    assert.equal(content('/readme.txt').encoding, undefined);
  });
});
