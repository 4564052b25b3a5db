import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { HttpRow } from '../../src/capture/types';
import { ROW_KEYS, rowsFor, runLensApp, startUpstreams, type LensRun, type Upstreams } from './lens-app';

const JSON_LENGTH = Buffer.byteLength(
  JSON.stringify({ ok: true, token: 'upstream-secret-token', items: [1, 2, 3], user: { name: 'ada', password: 'hunter2' } }),
);
const MASKED_JSON = { ok: true, token: '********', items: [1, 2, 3], user: { name: 'ada', password: '********' } };

/** Every client library the issue names, one call (or two) each, against real upstreams. */
const BODY = `
const U = process.env.UPSTREAM, S = process.env.UPSTREAM_TLS, CLOSED = process.env.CLOSED;
async function main() {
  const log = (...a) => console.log(...a);
  let r = await fetch(U + '/json?c=fetch'); log('fetch', r.status, (await r.json()).ok);
  r = await fetch(S + '/gzip?c=fetch-tls'); log('fetch-tls', r.status, (await r.json()).ok);
  r = await fetch(U + '/redirect/2?c=fetch-redirect'); log('fetch-redirect', r.status, r.redirected, (await r.json()).ok);
  r = await fetch(U + '/echo?c=fetch-post', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer abc' }, body: JSON.stringify({ name: 'n', password: 'pw' }) });
  log('fetch-post', r.status, await r.text());
  try { await fetch(CLOSED + '/x?c=fetch-refused'); } catch (e) { log('fetch-refused', e.message, e.cause && e.cause.code); }

  const u1 = await undici.request(U + '/text?c=undici-request'); log('undici-request', u1.statusCode, await u1.body.text());
  r = await undici.fetch(U + '/json?c=undici-fetch'); log('undici-fetch', r.status, (await r.json()).ok);
  r = await undici.fetch(U + '/redirect/1?c=undici-fetch-redirect'); log('undici-fetch-redirect', r.status, (await r.json()).ok);
  const agent = new undici.Agent();
  const u2 = await undici.request(U + '/json?c=undici-agent', { dispatcher: agent }); log('undici-agent', u2.statusCode, (await u2.body.json()).ok);
  const pool = new undici.Pool(U);
  const u3 = await pool.request({ path: '/json?c=undici-pool', method: 'GET' }); log('undici-pool', u3.statusCode, (await u3.body.json()).ok);
  await pool.close(); await agent.close();

  await new Promise((resolve) => http.get(U + '/json?c=http', (res) => { let n = 0; res.on('data', (c) => (n += c.length)); res.on('end', () => { log('http', res.statusCode, n); resolve(); }); }));
  await new Promise((resolve) => https.get(S + '/text?c=https', (res) => { let t = ''; res.setEncoding('utf8'); res.on('data', (c) => (t += c)); res.on('end', () => { log('https', res.statusCode, t); resolve(); }); }));
  await new Promise((resolve) => {
    const req = http.request(U + '/echo?c=http-post', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => { res.resume(); res.on('end', () => { log('http-post', res.statusCode); resolve(); }); });
    req.write('name=n&');
    req.end('secret=s3');
  });
  await new Promise((resolve) => http.get(CLOSED + '/x?c=http-refused').on('error', (e) => { log('http-refused', e.code); resolve(); }));

  const a = await axios.get(U + '/json?c=axios'); log('axios', a.status, a.data.ok);
  const got = await gotP; const g = await got(S + '/json?c=got').json(); log('got', g.ok);
  const nf = await nodeFetch(U + '/br?c=node-fetch'); log('node-fetch', nf.status, (await nf.json()).ok);
}
main().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

const CJS = `const http = require('node:http'); const https = require('node:https'); const undici = require('undici');
const axios = require('axios'); const nodeFetch = require('node-fetch'); const gotP = import('got').then((m) => m.default);
${BODY}`;

const ESM = `import http from 'node:http'; import https from 'node:https'; import * as undici from 'undici';
import axios from 'axios'; import nodeFetch from 'node-fetch'; const gotP = import('got').then((m) => m.default);
${BODY}`;

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function one(rows: HttpRow[], marker: string): HttpRow {
  const found = rows.filter((row) => new URL(row.url).searchParams.get('c') === marker);
  assert.equal(found.length, 1, `exactly one row for ${marker}, got ${found.length}: ${rows.map((r) => r.url).join(', ')}`);
  return found[0]!;
}

function assertOk(row: HttpRow, expected: { url: string; host: string; status?: number; remotePort: number; bytes?: number }): void {
  for (const key of ROW_KEYS) assert.ok(key in row, `${row.url}: row has ${key}`);
  assert.equal(row.url, expected.url);
  assert.equal(row.host, expected.host);
  assert.equal(row.endpoint, `${row.method} ${expected.url.split('?')[0]!.replace(/\/\d+(?=\/|$)/g, '/{id}')}`);
  assert.equal(row.status, expected.status ?? 200);
  assert.equal(row.failed, false);
  assert.equal(row.fake, false);
  assert.equal(row.exception, null);
  assert.equal(row.pool, null);
  assert.equal(typeof row.duration, 'number');
  assert.equal(typeof row.time, 'number');
  assert.ok(row.timing, `${row.url}: timing`);
  assert.equal(row.timing.remote, `127.0.0.1:${expected.remotePort}`);
  assert.equal(row.timing.protocol, 'HTTP/1.1');
  assert.equal(typeof row.timing.wait, 'number', `${row.url}: wait`);
  assert.equal(typeof row.timing.download, 'number', `${row.url}: download`);
  for (const [name, value] of Object.entries(row.request_headers)) assert.equal(name, name.toLowerCase(), `${name} lower-case (${value})`);
  assert.ok(Object.keys(row.response_headers).length > 0);
  if (expected.bytes !== undefined) assert.equal(row.response_bytes, expected.bytes, `${row.url}: response_bytes`);
  assert.equal(row.origin?.file, process.env.LENS_APP_FILE ?? row.origin?.file);
}

function checkRows(up: Upstreams, run: LensRun, closed: number, appFile: string): void {
  assert.equal(run.result.code, 0, run.result.stderr);
  assert.ok(run.capture, 'a command capture');
  const rows = run.rows;
  const U = up.plain.url;
  const S = up.tls.url;
  const plainHost = `127.0.0.1:${up.plain.port}`;
  const tlsHost = `localhost:${up.tls.port}`;
  assert.equal(rows.length, 17, rows.map((r) => r.url).join('\n'));
  // undici's own fetch follows redirects hop by hop too: still one row (ESM through the loader hook).
  const hop = one(rows, 'undici-fetch-redirect');
  assertOk(hop, { url: `${U}/redirect/1?c=undici-fetch-redirect`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.equal(hop.timing!.redirects, 1);

  const fetchRow = one(rows, 'fetch');
  assertOk(fetchRow, { url: `${U}/json?c=fetch`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.equal(fetchRow.method, 'GET');
  assert.equal(fetchRow.request_bytes, 0);
  assert.equal(fetchRow.request_payload, null);
  assert.equal(fetchRow.request_body, null, 'no bodies without the option');
  assert.equal(fetchRow.response_body, null);
  assert.deepEqual(fetchRow.response_capture?.cards, MASKED_JSON);
  assert.equal(fetchRow.response_capture?.capture, 'JsonCapture');
  assert.equal(fetchRow.response_headers['set-cookie'], '********');
  assert.equal(fetchRow.response_headers['x-request-id'], 'r-1');
  assert.equal(typeof fetchRow.timing!.connect, 'number', 'a new connection has connect');
  assert.equal(fetchRow.timing!.dns, undefined, 'no dns for an IP literal');
  assert.equal(fetchRow.timing!.tls, undefined, 'no tls on plain http');
  assert.equal(fetchRow.origin?.file, appFile);
  assert.equal(typeof fetchRow.origin?.line, 'number');

  const tlsRow = one(rows, 'fetch-tls');
  assertOk(tlsRow, { url: `${S}/gzip?c=fetch-tls`, host: tlsHost, remotePort: up.tls.port, bytes: JSON_LENGTH });
  assert.equal(typeof tlsRow.timing!.dns, 'number', 'localhost is looked up');
  assert.equal(typeof tlsRow.timing!.connect, 'number');
  assert.equal(typeof tlsRow.timing!.tls, 'number');
  assert.deepEqual(tlsRow.response_capture?.cards, MASKED_JSON, 'gzip decoded for the capture');

  const redirect = one(rows, 'fetch-redirect');
  assertOk(redirect, { url: `${U}/redirect/2?c=fetch-redirect`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.equal(redirect.timing!.redirects, 2);
  assert.equal(typeof redirect.timing!.redirect, 'number');
  assert.equal(redirect.endpoint, `GET ${U}/redirect/{id}`);
  assert.equal(rowsFor(rows, '/json').length, 0, 'redirect hops are not rows of their own');

  const post = one(rows, 'fetch-post');
  assertOk(post, { url: `${U}/echo?c=fetch-post`, host: plainHost, remotePort: up.plain.port });
  assert.equal(post.method, 'POST');
  assert.equal(post.request_bytes, Buffer.byteLength(JSON.stringify({ name: 'n', password: 'pw' })));
  assert.deepEqual(post.request_payload, { name: 'n', password: '********' });
  assert.equal(post.request_headers.authorization, '********');
  assert.equal(post.request_headers['content-type'], 'application/json');
  assert.deepEqual(post.response_capture?.cards, { name: 'n', password: '********' });

  for (const marker of ['fetch-refused', 'http-refused']) {
    const row = one(rows, marker);
    for (const key of ROW_KEYS) assert.ok(key in row, `${marker}: row has ${key}`);
    assert.equal(row.status, null);
    assert.equal(row.failed, true);
    assert.equal(row.timing, null);
    assert.deepEqual(row.response_headers, {});
    assert.equal(row.response_bytes, null);
    assert.equal(row.response_capture, null);
    assert.equal(typeof row.duration, 'number');
    assert.ok(row.exception);
    assert.equal(row.exception.file, `${appFile}:${row.origin?.line}`);
    assert.equal(row.host, `127.0.0.1:${closed}`);
  }
  const fetchRefused = one(rows, 'fetch-refused').exception!;
  assert.equal(fetchRefused.class, 'TypeError');
  // undici's wrapper, then the reason: what every view of the row shows.
  assert.match(fetchRefused.message, /^fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  assert.equal(fetchRefused.previous[0]?.code, 'ECONNREFUSED');
  const httpRefused = one(rows, 'http-refused').exception!;
  assert.equal(httpRefused.code, 'ECONNREFUSED');
  assert.match(httpRefused.message, /ECONNREFUSED/);

  assertOk(one(rows, 'undici-request'), { url: `${U}/text?c=undici-request`, host: plainHost, remotePort: up.plain.port, bytes: 19 });
  assert.equal(one(rows, 'undici-request').response_capture, null, 'text/plain matches no capture');
  assertOk(one(rows, 'undici-fetch'), { url: `${U}/json?c=undici-fetch`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  const agentRow = one(rows, 'undici-agent');
  assertOk(agentRow, { url: `${U}/json?c=undici-agent`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.equal(typeof agentRow.timing!.connect, 'number', 'own Agent opens its own connection');
  const poolRow = one(rows, 'undici-pool');
  assertOk(poolRow, { url: `${U}/json?c=undici-pool`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.deepEqual(poolRow.response_capture?.cards, MASKED_JSON);

  const httpRow = one(rows, 'http');
  assertOk(httpRow, { url: `${U}/json?c=http`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.deepEqual(httpRow.response_capture?.cards, MASKED_JSON);
  const httpsRow = one(rows, 'https');
  assertOk(httpsRow, { url: `${S}/text?c=https`, host: tlsHost, remotePort: up.tls.port, bytes: 19 });
  assert.equal(typeof httpsRow.timing!.tls, 'number');
  const httpPost = one(rows, 'http-post');
  assertOk(httpPost, { url: `${U}/echo?c=http-post`, host: plainHost, remotePort: up.plain.port, bytes: 16 });
  assert.equal(httpPost.request_bytes, 16);
  assert.deepEqual(httpPost.request_payload, { name: 'n', secret: '********' });

  assertOk(one(rows, 'axios'), { url: `${U}/json?c=axios`, host: plainHost, remotePort: up.plain.port, bytes: JSON_LENGTH });
  assert.deepEqual(one(rows, 'axios').response_capture?.cards, MASKED_JSON);
  assertOk(one(rows, 'got'), { url: `${S}/json?c=got`, host: tlsHost, remotePort: up.tls.port, bytes: JSON_LENGTH });
  const nf = one(rows, 'node-fetch');
  assertOk(nf, { url: `${U}/br?c=node-fetch`, host: plainHost, remotePort: up.plain.port });
  assert.deepEqual(nf.response_capture?.cards, MASKED_JSON, 'br decoded for the capture');

  // Rows are in call order, times from the capture start.
  const times = rows.map((row) => row.time);
  assert.deepEqual(
    [...times].sort((a, b) => a - b),
    times,
  );
  const summary = run.capture!.summary;
  assert.equal(summary.totals?.http_calls, 17);
  assert.equal(summary.totals?.http_failed, 2);
}

describe('HTTP rows for every client library', () => {
  let up: Upstreams;
  let closed: number;
  before(async () => {
    up = await startUpstreams();
    closed = await closedPort();
  });
  after(() => up.close());

  it('records fetch, undici, http, https, axios, got and node-fetch under --require', async () => {
    const run = await runLensApp(up, { 'app.js': CJS }, 'app.js', { env: { CLOSED: `http://127.0.0.1:${closed}` } });
    checkRows(up, run, closed, 'app.js');
  });

  it('records the same under --import with an ESM app', async () => {
    const run = await runLensApp(up, { 'app.mjs': ESM }, 'app.mjs', { preload: 'import', env: { CLOSED: `http://127.0.0.1:${closed}` } });
    checkRows(up, run, closed, 'app.mjs');
  });
});
