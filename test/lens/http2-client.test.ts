import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { testCertificate } from '../helpers/upstream';
import type { HttpRow } from '../../src/capture/types';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const JSON_BODY = JSON.stringify({ ok: true, token: 'h2-secret', via: 'h2' });

interface H2Server {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A real HTTP/2 server on loopback: over TLS (ALPN h2) or cleartext (h2c). */
async function startH2(tls: boolean): Promise<H2Server> {
  const server = tls ? http2.createSecureServer(testCertificate()) : http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const path = String(headers[':path'] ?? '/');
    const chunks: Buffer[] = [];
    stream.on('error', () => {}); // the stream this server resets on purpose
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      if (path.startsWith('/json')) {
        stream.respond({ ':status': 200, 'content-type': 'application/json', 'set-cookie': 'sid=h2-cookie' });
        return stream.end(JSON_BODY);
      }
      if (path.startsWith('/echo')) {
        stream.respond({ ':status': 201, 'content-type': String(headers['content-type'] ?? 'text/plain') });
        return stream.end(Buffer.concat(chunks));
      }
      if (path.startsWith('/reset')) return stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      stream.respond({ ':status': 404 });
      stream.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://${tls ? 'localhost' : '127.0.0.1'}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The calls, as a CommonJS app makes them; `PRELUDE` lets a variant load an OTel setup first. */
const CALLS = `
function stream(session, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path, ':method': method, ...headers });
    let status = 0, text = '';
    req.on('response', (h) => (status = h[':status']));
    req.setEncoding('utf8');
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve(status + ' ' + text));
    req.on('error', (e) => resolve('error ' + e.code));
    if (body) req.write(body);
    req.end();
  });
}
async function main() {
  const tls = connect(process.env.H2_TLS);
  console.log('tls-1', await stream(tls, '/json?c=tls-1', { headers: { authorization: 'Bearer h2-token' } }));
  console.log('tls-2', await stream(tls, '/echo?c=tls-2', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'p', n: 1 }) }));
  console.log('reset', await stream(tls, '/reset?c=reset'));
  tls.close();
  const h2c = connect(process.env.H2C);
  console.log('h2c', await stream(h2c, '/json?c=h2c'));
  h2c.close();
}
`;

const CJS_APP = `
${'const { connect } = require("node:http2");'}
${CALLS}
main().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

const ESM_APP = `
import { connect } from 'node:http2';
${CALLS}
await main();
`;

/** The app's own OpenTelemetry setup, registered before the calls, with every call under an active span of its own. */
const WITH_OTEL = `
const { NodeTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-node');
const { trace } = require('@opentelemetry/api');
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
provider.register();
const { connect } = require('node:http2');
${CALLS}
trace.getTracer('app').startActiveSpan('calls', (span) => main().then(() => span.end())).catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

function byMarker(rows: HttpRow[], marker: string): HttpRow[] {
  return rows.filter((row) => new URL(row.url).searchParams.get('c') === marker);
}

describe('node:http2 client streams', () => {
  let up: Upstreams;
  let tls: H2Server;
  let h2c: H2Server;
  let env: Record<string, string>;
  before(async () => {
    up = await startUpstreams();
    tls = await startH2(true);
    h2c = await startH2(false);
    env = { H2_TLS: tls.url, H2C: h2c.url, NODE_NO_WARNINGS: '1' };
  });
  after(async () => {
    await tls.close();
    await h2c.close();
    await up.close();
  });

  const cases = [
    ['a CommonJS app (--require)', { 'app.js': CJS_APP }, 'app.js', 'require'],
    ['an ESM app with a named import (--import)', { 'app.mjs': ESM_APP }, 'app.mjs', 'import'],
    ['an app with its own OpenTelemetry setup', { 'app.js': WITH_OTEL }, 'app.js', 'require'],
  ] as const;
  for (const [label, files, script, preload] of cases) {
    it(`records one row per stream: ${label}`, async () => {
      const run = await runLensApp(up, files, script, { preload, env });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.match(run.result.stdout, /tls-1 200 \{"ok":true/);
      assert.match(run.result.stdout, /reset error ERR_HTTP2_STREAM_ERROR/);
      const rows = run.rows;
      assert.equal(rows.length, 4, rows.map((r) => r.url).join('\n'));

      const [first] = byMarker(rows, 'tls-1');
      assert.ok(first);
      assert.equal(first.url, `https://localhost:${tls.port}/json?c=tls-1`);
      assert.equal(first.method, 'GET');
      assert.equal(first.status, 200);
      assert.equal(first.fake, false);
      assert.equal(first.request_headers.authorization, '********');
      assert.ok(!Object.keys(first.request_headers).some((name) => name.startsWith(':')), 'no pseudo-headers');
      assert.equal(first.response_headers['content-type'], 'application/json');
      assert.equal(first.response_bytes, Buffer.byteLength(JSON_BODY));
      assert.deepEqual(first.response_capture?.cards, { ok: true, token: '********', via: 'h2' });
      assert.equal(first.timing?.protocol, 'HTTP/2');
      assert.equal(first.timing?.remote, `127.0.0.1:${tls.port}`);
      assert.equal(typeof first.timing?.connect, 'number', 'the session connects for its first stream');
      assert.equal(typeof first.timing?.tls, 'number', 'and shakes hands for it');
      assert.equal(typeof first.timing?.wait, 'number');
      assert.equal(first.origin?.file, script);

      const [post] = byMarker(rows, 'tls-2');
      assert.ok(post);
      assert.equal(post.method, 'POST');
      assert.equal(post.status, 201);
      assert.equal(post.request_bytes, Buffer.byteLength(JSON.stringify({ password: 'p', n: 1 })));
      assert.deepEqual(post.request_payload, { password: '********', n: 1 });
      assert.equal(post.response_bytes, post.request_bytes);
      assert.equal(post.timing?.protocol, 'HTTP/2');
      assert.equal(post.timing?.tls, undefined, 'a later stream of the session reuses its connection');
      assert.equal(post.timing?.connect, undefined);

      const [reset] = byMarker(rows, 'reset');
      assert.ok(reset);
      assert.equal(reset.status, null);
      assert.equal(reset.failed, true);

      const [clear] = byMarker(rows, 'h2c');
      assert.ok(clear);
      assert.equal(clear.url, `http://127.0.0.1:${h2c.port}/json?c=h2c`);
      assert.equal(clear.status, 200);
      assert.equal(clear.timing?.protocol, 'HTTP/2');
      assert.equal(typeof clear.timing?.connect, 'number');
      assert.equal(clear.timing?.tls, undefined);
    });
  }

  it('the app sees what it sees without Probe', async () => {
    const bare = await runLensApp(up, { 'app.js': CJS_APP }, 'app.js', { preload: 'none', env });
    const probed = await runLensApp(up, { 'app.js': CJS_APP }, 'app.js', { preload: 'require', env });
    assert.equal(probed.result.stdout, bare.result.stdout);
    assert.equal(probed.result.stderr, bare.result.stderr);
  });
});
