import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { testCertificate } from '../helpers/upstream';
import { ROW_KEYS, runLensApp, startUpstreams, type Upstreams } from './lens-app';

const JSON_BODY = JSON.stringify({ ok: true, token: 'h2-secret', via: 'h2' });

/** A real HTTP/2 server over TLS on loopback (ALPN h2 only), with the routes the app below calls. */
async function startH2(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const { key, cert } = testCertificate();
  const server = http2.createSecureServer({ key, cert });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const path = String(headers[':path'] ?? '/');
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      if (path.startsWith('/json')) {
        stream.respond({ ':status': 200, 'content-type': 'application/json' });
        return stream.end(JSON_BODY);
      }
      if (path.startsWith('/gzip')) {
        stream.respond({ ':status': 200, 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return stream.end(zlib.gzipSync(JSON_BODY));
      }
      if (path.startsWith('/echo')) {
        stream.respond({ ':status': 201, 'content-type': String(headers['content-type'] ?? 'text/plain') });
        return stream.end(Buffer.concat(chunks));
      }
      stream.respond({ ':status': 404 });
      stream.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

const APP = `
const http2 = require('node:http2');
const undici = require('undici');
const H2 = process.env.H2;
function h2get(path) {
  return new Promise((resolve, reject) => {
    const session = http2.connect(H2);
    session.on('error', reject);
    const req = session.request({ ':path': path });
    let status = 0, text = '';
    req.on('response', (headers) => (status = headers[':status']));
    req.setEncoding('utf8');
    req.on('data', (c) => (text += c));
    req.on('end', () => { session.close(); resolve(status + ' ' + text); });
    req.on('error', reject);
    req.end();
  });
}
(async () => {
  const agent = new undici.Agent({ allowH2: true });
  const a = await undici.request(H2 + '/json?c=h2-request', { dispatcher: agent });
  console.log('h2-request', a.statusCode, await a.body.text());
  const b = await undici.fetch(H2 + '/gzip?c=h2-fetch', { dispatcher: agent });
  console.log('h2-fetch', b.status, (await b.json()).via);
  const c = await undici.request(H2 + '/echo?c=h2-post', { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'p', n: 1 }) });
  console.log('h2-post', c.statusCode, await c.body.text());
  await agent.close();
  console.log('http2-client', await h2get('/json?c=http2-client'));
  console.log('http2-client-again', await h2get('/echo?c=http2-client-2'));
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

describe('HTTP/2', () => {
  let up: Upstreams;
  let h2: Awaited<ReturnType<typeof startH2>>;
  before(async () => {
    up = await startUpstreams();
    h2 = await startH2();
  });
  after(async () => {
    await h2.close();
    await up.close();
  });

  it('records undici calls over h2 (allowH2) with protocol HTTP/2, status and bytes', async () => {
    const run = await runLensApp(up, { 'app.js': APP }, 'app.js', { env: { H2: h2.url, NODE_NO_WARNINGS: '1' } });
    assert.equal(run.result.code, 0, run.result.stderr);
    const rows = run.rows;
    const byMarker = (marker: string) => rows.filter((row) => new URL(row.url).searchParams.get('c') === marker);

    const request = byMarker('h2-request');
    assert.equal(request.length, 1, rows.map((r) => r.url).join('\n'));
    const row = request[0]!;
    for (const key of ROW_KEYS) assert.ok(key in row, `row has ${key}`);
    assert.equal(row.status, 200);
    assert.equal(row.fake, false);
    assert.equal(row.response_bytes, Buffer.byteLength(JSON_BODY));
    assert.deepEqual(row.response_capture?.cards, { ok: true, token: '********', via: 'h2' });
    assert.ok(row.timing, 'timing');
    assert.equal(row.timing.protocol, 'HTTP/2');
    assert.equal(row.timing.remote, `127.0.0.1:${h2.port}`);
    assert.equal(typeof row.timing.wait, 'number');
    assert.equal(typeof row.timing.tls, 'number', 'a new h2 session has its TLS handshake');

    const fetched = byMarker('h2-fetch');
    assert.equal(fetched.length, 1);
    assert.equal(fetched[0]!.status, 200);
    assert.equal(fetched[0]!.timing?.protocol, 'HTTP/2');
    assert.equal(fetched[0]!.response_bytes, Buffer.byteLength(JSON_BODY), 'fetch decodes gzip: decoded size');
    assert.deepEqual(fetched[0]!.response_capture?.cards, { ok: true, token: '********', via: 'h2' });

    const post = byMarker('h2-post');
    assert.equal(post.length, 1);
    assert.equal(post[0]!.status, 201);
    assert.equal(post[0]!.method, 'POST');
    assert.equal(post[0]!.timing?.protocol, 'HTTP/2');
    assert.equal(post[0]!.request_bytes, Buffer.byteLength(JSON.stringify({ password: 'p', n: 1 })));
    assert.deepEqual(post[0]!.request_payload, { password: '********', n: 1 });
    assert.equal(post[0]!.response_bytes, post[0]!.request_bytes);

    // node:http2 client streams are recorded by their own lens (see http2-client.test.ts), one row per stream.
    assert.equal(byMarker('http2-client').length, 1);
    assert.equal(byMarker('http2-client').at(0)?.timing?.protocol, 'HTTP/2');
    assert.equal(byMarker('http2-client-2').length, 1);
    assert.equal(rows.length, 5, rows.map((r) => r.url).join('\n'));
  });

  for (const preload of ['require', 'import'] as const) {
    it(`leaves node:http2 client calls as they are (--${preload})`, async () => {
      const env = { H2: h2.url, NODE_NO_WARNINGS: '1' };
      const bare = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'none', env });
      const probed = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload, env });
      assert.equal(bare.result.code, 0, bare.result.stderr);
      assert.equal(probed.result.code, 0, probed.result.stderr);
      assert.equal(probed.result.stdout, bare.result.stdout);
      assert.match(probed.result.stdout, /http2-client 200 \{"ok":true/);
      assert.match(probed.result.stdout, /http2-client-again 201/);
      assert.equal(probed.result.stderr, bare.result.stderr);
    });
  }
});
