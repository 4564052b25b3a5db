import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/**
 * Everything an app can observe about its calls, printed in a fixed order. Run without Probe and with it:
 * the output must be byte for byte the same (SPEC 1: the host application never notices Probe).
 */
const APP = `
const http = require('node:http');
const crypto = require('node:crypto');
const { Writable, pipeline } = require('node:stream');
const U = process.env.UPSTREAM, S = process.env.UPSTREAM_TLS;
const out = [];
const log = (...a) => out.push(a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' '));
const sha = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
const err = (e) => [e && e.constructor && e.constructor.name, e && e.name, e && e.message, e && e.code, e && e.cause && [e.cause.constructor.name, e.cause.message, e.cause.code]];
const rejections = [];
process.on('unhandledRejection', (reason) => rejections.push(String(reason && reason.message)));
const hdrs = (h) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'host'));
const httpGet = (url, onRes) => new Promise((resolve, reject) => { const req = http.get(url, (res) => onRes(res, resolve, reject)); req.on('error', reject); });

(async () => {
  const MiB3 = 3 * 1024 * 1024;
  // fetch: reader, arrayBuffer, text of compressed bodies, binary and invalid JSON
  let r = await fetch(U + '/big?bytes=' + MiB3);
  const reader = r.body.getReader(); const hash = crypto.createHash('sha256'); let n = 0; let chunks = 0;
  for (;;) { const { done, value } = await reader.read(); if (done) break; n += value.length; chunks++; hash.update(value); }
  log('fetch reader', r.status, n, hash.digest('hex'));
  r = await fetch(S + '/big?bytes=' + MiB3); log('fetch arrayBuffer tls', sha(Buffer.from(await r.arrayBuffer())));
  for (const p of ['/gzip', '/br', '/deflate', '/binary', '/text', '/html']) { r = await fetch(U + p); log('fetch', p, r.status, [...r.headers].filter(([k]) => k !== 'date'), sha(Buffer.from(await r.arrayBuffer()))); }
  r = await fetch(U + '/invalid-json'); try { await r.json(); } catch (e) { log('invalid json', err(e)); }
  r = await fetch(U + '/status/404'); log('404', r.status, r.ok, await r.text());
  r = await fetch(U + '/echo', { method: 'POST', body: new Uint8Array([0, 1, 2, 255]) }); log('echo bytes', sha(Buffer.from(await r.arrayBuffer())));
  r = await fetch(U + '/echo', { method: 'POST', body: new URLSearchParams({ a: '1', password: 'x' }) }); log('echo form', r.headers.get('content-type'), await r.text());
  // a body never read, then an abort mid-body, an abort before any response, and failures before dispatch
  r = await fetch(U + '/big?bytes=' + MiB3); log('unread', r.status, r.bodyUsed);
  const ac = new AbortController(); r = await fetch(U + '/hang', { signal: ac.signal }); const rd = r.body.getReader(); log('partial', Buffer.from((await rd.read()).value).toString());
  ac.abort(); try { await rd.read(); } catch (e) { log('abort mid-body', err(e)); }
  const ac2 = new AbortController(); const p2 = fetch(U + '/slow?ms=300', { signal: ac2.signal }); setTimeout(() => ac2.abort(), 20); try { await p2; } catch (e) { log('abort', err(e)); }
  try { await fetch(U + '/json', { signal: AbortSignal.abort() }); } catch (e) { log('pre-aborted', err(e)); }
  for (const bad of ['not a url', 'http://127.0.0.1:1/x', 'ftp://x/y', 'http://127.0.0.1:' + process.env.CLOSED_PORT + '/x']) { try { await fetch(bad); log('no error?', bad); } catch (e) { log('bad', bad, err(e)); } }
  // http: data events, pipe, for-await, an unread response, destroy, invalid URL
  await httpGet(U + '/big?bytes=' + MiB3, (res, resolve) => { const h = crypto.createHash('sha256'); let k = 0; res.on('data', (c) => { k += c.length; h.update(c); }); res.on('end', () => { log('http data', k, h.digest('hex')); resolve(); }); });
  await httpGet(U + '/big?bytes=' + MiB3, (res, resolve, reject) => { const h = crypto.createHash('sha256'); let k = 0; pipeline(res, new Writable({ highWaterMark: 1024, write(c, _e, cb) { k += c.length; h.update(c); setImmediate(cb); } }), (e) => (e ? reject(e) : (log('http pipe slow', k, h.digest('hex')), resolve()))); });
  await httpGet(U + '/gzip', async (res, resolve) => { const parts = []; for await (const c of res) parts.push(c); log('http for-await', res.headers['content-encoding'], sha(Buffer.concat(parts))); resolve(); });
  await httpGet(U + '/big?bytes=100000', (res, resolve) => { log('http unread', res.statusCode); resolve(); });
  await new Promise((resolve) => { const req = http.get(U + '/hang', (res) => { res.once('data', () => req.destroy(new Error('stop'))); res.on('error', (e) => log('res error', err(e))); res.on('close', () => resolve()); }); req.on('error', (e) => log('req error', err(e))); });
  try { http.get('http://'); } catch (e) { log('http invalid', err(e)); }
  await new Promise((resolve) => http.get('http://127.0.0.1:' + process.env.CLOSED_PORT + '/x').on('error', (e) => { log('http refused', err(e)); resolve(); }));
  // libraries: the headers the upstream saw, and their errors
  r = await fetch(U + '/headers', { headers: { 'x-app': '1' } }); log('fetch headers', hdrs((await r.json()).headers));
  await httpGet(U + '/headers', (res, resolve) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => { log('http headers', hdrs(JSON.parse(t).headers)); resolve(); }); });
  const undici = require('undici');
  const u = await undici.request(U + '/headers'); log('undici headers', hdrs((await u.body.json()).headers));
  const axios = require('axios');
  log('axios headers', hdrs((await axios.get(U + '/headers')).data.headers));
  try { await axios.get(U + '/status/503'); } catch (e) { log('axios error', e.message, e.code, e.response.status); }
  const got = (await import('got')).default;
  log('got headers', hdrs((await got(U + '/headers').json()).headers));
  try { await got(U + '/status/500', { retry: { limit: 0 } }); } catch (e) { log('got error', e.name, e.message, e.code); }
  const nodeFetch = require('node-fetch');
  log('node-fetch headers', hdrs((await (await nodeFetch(U + '/headers')).json()).headers));
  try { await nodeFetch('http://127.0.0.1:' + process.env.CLOSED_PORT); } catch (e) { log('node-fetch error', e.name, e.code, e.type); }
  // A later call, completed: a rejection left unhandled by the calls before it has been reported by now.
  await (await fetch(U + '/headers')).text();
  log('rejections', rejections);
  console.log(out.join('\\n'));
  process.exit(0);
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

describe('the app never notices Probe', () => {
  let up: Upstreams;
  let closedPort: string;
  before(async () => {
    up = await startUpstreams();
    const net = await import('node:net');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closedPort = String((server.address() as import('node:net').AddressInfo).port);
    await new Promise((resolve) => server.close(resolve));
  });
  after(() => up.close());

  it('same bytes, errors, headers and no unhandled rejection with --require and --import', async () => {
    const env = { CLOSED_PORT: closedPort };
    const baseline = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'none', env });
    assert.equal(baseline.result.code, 0, baseline.result.stderr);
    assert.equal(baseline.capture, undefined);
    assert.match(baseline.result.stdout, /rejections \[\]/);
    assert.doesNotMatch(baseline.result.stdout, /traceparent/);
    for (const preload of ['require', 'import'] as const) {
      const run = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload, env });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.result.stderr, '', `${preload}: Probe writes nothing to stderr`);
      const expected = baseline.result.stdout.split('\n');
      const actual = run.result.stdout.split('\n');
      for (let i = 0; i < Math.max(expected.length, actual.length); i++) assert.equal(actual[i], expected[i], `${preload}: line ${i + 1}`);
      // And it did record: the 3 MiB bodies count every byte, the unread body and aborts still are rows.
      assert.ok(run.capture, `${preload}: a command capture`);
      const big = run.rows.filter((row) => row.url.includes('/big?bytes=3145728'));
      assert.equal(big.length, 5);
      for (const row of big.filter((r) => r.response_bytes !== null && !r.url.startsWith('https'))) assert.ok(row.response_bytes! <= 3145728);
      const full = big.filter((row) => row.response_bytes === 3145728);
      assert.ok(full.length >= 3, `${preload}: read bodies count every byte (${big.map((r) => r.response_bytes)})`);
      assert.ok(
        run.rows.some((row) => row.url.endsWith('/hang') && row.status === 200),
        'the aborted body is a row',
      );
      assert.ok(
        run.rows.some((row) => row.url.includes('/slow') && row.status === null && row.exception),
        'the aborted call is a failed row',
      );
    }
  });
});
