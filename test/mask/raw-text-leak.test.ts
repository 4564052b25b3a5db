// End to end: an app under --require probe/register reads bodies Probe keeps cut (max_body_bytes) or cannot
// parse whole (JSON lines, JSON as text/plain, an event stream cut mid-event), and sends a JSON body past the
// cap. Every secret value (all hold SEKRIT) sits before the cut or straddles it: none may reach the store,
// nor the CLI's HAR export of the capture.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import type { HttpRow } from '../../src/capture/types';

const CAP = 4096;

/** JSON text whose `password` value straddles byte CAP: SEKRIT-straddle starts 40 bytes before the cut. */
function bigJson(): string {
  const head = `{"user":"ada","access_token":"SEKRIT-access","meta":{"headers":{"authorization":"Bearer SEKRIT-bearer"},"apiKey":"SEKRIT-apikey","pinned":4242},"pad":"`;
  const tail = `","password":"`;
  const padding = 'p'.repeat(CAP - 40 - head.length - tail.length);
  const after = { password_after: 'x', items: Array.from({ length: 300 }, (_, i) => ({ id: i, token: `SEKRIT-after-${i}` })) };
  return `${head}${padding}${tail}SEKRIT-straddle-${'s'.repeat(100)}",${JSON.stringify(after).slice(1)}`;
}

function sse(): string {
  let out = '';
  for (let i = 0; out.length < CAP - 200; i++) out += `data: {"n":${i},"access_token":"SEKRIT-sse-${i}"}\n\n`;
  // The cut falls inside this event's secret value, 30 bytes into it (a comment line pads up to it).
  const last = 'data: {"n":"last","refresh_token":"';
  out += `:${'c'.repeat(CAP - 30 - out.length - last.length - 2)}\n`;
  return `${out}${last}SEKRIT-sse-straddle-${'r'.repeat(200)}"}\n\n`;
}

const NDJSON =
  Array.from({ length: 5 }, (_, i) => JSON.stringify({ id: i, token: `SEKRIT-nd-${i}`, user: { password: `SEKRIT-ndpw-${i}` } })).join('\n') + '\n';
const PLAIN_JSON = JSON.stringify({ ok: true, client_secret: 'SEKRIT-plain', nested: [{ Authorization: 'Bearer SEKRIT-plain-bearer' }] });

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  req.on('end', () => {
    const route = new URL(req.url ?? '/', 'http://x').pathname;
    if (route === '/big-json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(bigJson());
    if (route === '/big-json-gzip')
      return void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(zlib.gzipSync(bigJson()));
    if (route === '/ndjson') return void res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(NDJSON);
    if (route === '/plain-json') return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(PLAIN_JSON);
    if (route === '/sse') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse());
    if (route === '/upload') return void res.writeHead(204).end();
    res.writeHead(404).end();
  });
}

const CONFIG = `module.exports = { lenses: { HttpClientLens: { bodies: true, max_body_bytes: ${CAP} } } };`;

const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
(async () => {
  const seen = {};
  for (const path of ['/big-json', '/big-json-gzip', '/ndjson', '/plain-json', '/sse']) {
    const res = await fetch(U + path);
    seen[path] = (await res.text()).length;
  }
  // node:http too: the cut is made by another lens.
  seen.http = await new Promise((resolve, reject) => http.get(U + '/big-json', (res) => {
    let n = 0; res.on('data', (c) => (n += c.length)); res.on('end', () => resolve(n));
  }).on('error', reject));
  const upload = JSON.stringify({ client_id: 'app', client_secret: 'SEKRIT-upload-cs', password: 'SEKRIT-upload-pw', pad: 'u'.repeat(${CAP - 120}), token: 'SEKRIT-upload-straddle-' + 't'.repeat(300), more: 'SEKRIT-upload-after' });
  await fetch(U + '/upload', { method: 'POST', headers: { 'content-type': 'application/json' }, body: upload });
  console.log(JSON.stringify(seen));
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('raw body text is masked when it does not parse whole', () => {
  let server: http.Server;
  let upstream: string;
  before(async () => {
    server = http.createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('stores no secret from cut JSON, JSON lines, JSON as text, a cut event stream or a cut request body', async () => {
    const app = new TestApp({ 'app.js': APP, 'probe.config.js': CONFIG });
    const result = await app.run('app.js', { env: { UPSTREAM: upstream } });
    assert.equal(result.code, 0, result.stderr);
    // The app read every body whole, as without Probe.
    const big = Buffer.byteLength(bigJson());
    assert.deepEqual(JSON.parse(result.stdout), {
      '/big-json': big,
      '/big-json-gzip': big,
      '/ndjson': NDJSON.length,
      '/plain-json': PLAIN_JSON.length,
      '/sse': sse().length,
      http: big,
    });

    const rows = (app.captures().find((c) => c.type === 'command')?.sections.http ?? []) as HttpRow[];
    const by = (p: string) => rows.filter((row) => new URL(row.url).pathname === p);
    assert.equal(rows.length, 7);
    for (const row of [...by('/big-json'), ...by('/big-json-gzip')]) {
      assert.equal(row.truncated, true);
      assert.equal(row.response_capture, null, 'a cut JSON body has no capture');
      // Kept up to the cut, its secrets masked, the straddling one to the end.
      assert.match(
        row.response_body!,
        /^\{"user":"ada","access_token":"\*{8}","meta":\{"headers":\{"authorization":"\*{8}"\},"apiKey":"\*{8}","pinned":4242\}/,
      );
      assert.match(row.response_body!, /"password":"\*{8}$/);
    }
    assert.match(by('/ndjson')[0]!.response_body!, /^\{"id":0,"token":"\*{8}","user":\{"password":"\*{8}"\}\}\n/);
    assert.equal(by('/plain-json')[0]!.response_body, `{"ok":true,"client_secret":"********","nested":[{"Authorization":"********"}]}`);
    const stream = by('/sse')[0]!;
    assert.equal(stream.truncated, true);
    assert.equal(stream.response_capture?.capture, 'EventStreamCapture');
    assert.match(stream.response_capture!.raw as string, /"refresh_token":"\*{8}$/);
    const upload = by('/upload')[0]!;
    assert.equal(upload.truncated, true);
    assert.equal(upload.request_payload, null);
    assert.match(upload.request_body!, /^\{"client_id":"app","client_secret":"\*{8}","password":"\*{8}","pad":"u+","token":"\*{8}$/);

    const leaks = filesUnder(path.join(app.dir, '.probe')).filter((file) => readFileSync(file, 'latin1').includes('SEKRIT'));
    assert.deepEqual(leaks, [], 'no stored file holds a secret');
    const har = await app.cli(['export', '--har']);
    assert.equal(har.code, 0, har.stderr);
    assert.equal(JSON.parse(har.stdout).log.entries.length, 7);
    assert.ok(!har.stdout.includes('SEKRIT'), 'nor does the HAR export');
  });
});
