import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { CollectorServer } from '../../src/collector/CollectorServer';
import { otlpTypes } from '../../src/collector/otlpProto';
import { loadConfig } from '../../src/config/load';
import { createStore } from '../../src/store/registry';
import { createLogger } from '../../src/util/logger';
import type { Store } from '../../src/capture/Store';
import { TestApp, eventually } from '../helpers/app';
import { SERVER, exportRequest, requestTrace, span } from './otlpFixtures';

let app: TestApp;
let store: Store;
let server: CollectorServer;
let url: string;
const logged: string[] = [];

before(async () => {
  app = new TestApp({}, 'collector-server');
  const config = loadConfig({ cwd: app.dir, env: {} });
  const logger = createLogger((line) => logged.push(line));
  store = createStore({ root: config.root, config, logger });
  server = new CollectorServer({ store, config, logger, maxBodyBytes: 64 * 1024, sweepMs: 20, assembler: { settleMs: 50, commandIdleMs: 100 } });
  url = `${await server.listen(0, '127.0.0.1')}/v1/traces`;
});

after(async () => {
  await server.close();
  await store.close?.();
});

function post(body: Buffer | string, headers: Record<string, string>, target = url): Promise<Response> {
  return fetch(target, { method: 'POST', body, headers });
}

function rpcStatus(body: Buffer): { code: number; message: string } {
  const { Status } = otlpTypes();
  return Status.toObject(Status.decode(body)) as { code: number; message: string };
}

test('a JSON export is answered with an empty JSON response and becomes a capture', async () => {
  const res = await post(JSON.stringify(exportRequest(requestTrace())), { 'content-type': 'application/json' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.deepEqual(await res.json(), {});
  const capture = await eventually(async () => (await store.index()).find((row) => row.name === 'GET /invoices/7'));
  assert.equal(capture.type, 'request');
  assert.equal(capture.linked_via, 'otlp');
  assert.equal(capture.counts.http, 1);
});

test('a protobuf export gets an empty protobuf response; partial success reports rejected spans', async () => {
  const { ExportTraceServiceRequest, ExportTraceServiceResponse } = otlpTypes();
  const empty = await post(Buffer.from(ExportTraceServiceRequest.encode({}).finish()), { 'content-type': 'application/x-protobuf' });
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get('content-type'), 'application/x-protobuf');
  assert.equal((await empty.arrayBuffer()).byteLength, 0);

  const bad = exportRequest([span({ spanId: 'nothex', kind: 2, start: 0, end: 1 })]);
  const json = await post(JSON.stringify(bad), { 'content-type': 'application/json; charset=utf-8' });
  assert.equal(json.status, 200);
  const answer = (await json.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
  assert.equal(answer.partialSuccess.rejectedSpans, '1');
  assert.match(answer.partialSuccess.errorMessage, /spanId/);

  const withBytes = JSON.parse(JSON.stringify(bad), (key, value) =>
    key === 'spanId' ? Buffer.from('ab', 'hex') : key === 'traceId' ? Buffer.from(value, 'hex') : value,
  );
  const proto = await post(Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(withBytes)).finish()), {
    'content-type': 'application/x-protobuf',
  });
  assert.equal(proto.status, 200);
  const decoded = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(Buffer.from(await proto.arrayBuffer())), { longs: Number }) as {
    partialSuccess: { rejectedSpans: number };
  };
  assert.equal(decoded.partialSuccess.rejectedSpans, 1);
});

test('gzip bodies are decoded', async () => {
  const body = zlib.gzipSync(
    JSON.stringify(
      exportRequest([
        span({
          spanId: 'a1a1a1a1a1a1a1a1',
          traceId: 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1',
          kind: 2,
          start: 0,
          end: 5,
          attributes: { 'http.request.method': 'DELETE', 'url.path': '/gz' },
        }),
      ]),
    ),
  );
  const res = await post(body, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.equal(res.status, 200);
  await eventually(async () => (await store.index()).some((row) => row.name === 'DELETE /gz'));
});

test('malformed payloads get 400 with a google.rpc.Status body in the request format', async () => {
  const json = await post('{"resourceSpans": 5}', { 'content-type': 'application/json' });
  assert.equal(json.status, 400);
  const status = (await json.json()) as { code: number; message: string };
  assert.equal(status.code, 3);
  assert.match(status.message, /resourceSpans/);

  const proto = await post(Buffer.from([0x0a, 0x7f, 0x01, 0x02]), { 'content-type': 'application/x-protobuf' });
  assert.equal(proto.status, 400);
  assert.equal(proto.headers.get('content-type'), 'application/x-protobuf');
  const decoded = rpcStatus(Buffer.from(await proto.arrayBuffer()));
  assert.equal(decoded.code, 3);
  assert.match(decoded.message, /invalid protobuf/);

  const notGzip = await post('plain', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.equal(notGzip.status, 400);
});

test('oversized bodies and gzip bombs get 413; other methods, paths and types their own codes', async () => {
  const big = await post(Buffer.alloc(65 * 1024, 0x20), { 'content-type': 'application/json' });
  assert.equal(big.status, 413);
  assert.equal(((await big.json()) as { code: number }).code, 8);
  // 10 MiB of zeros gzip to about 10 KiB: under the wire limit, far over it once inflated.
  const bomb = await post(zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024)), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
  assert.equal(bomb.status, 413);
  assert.match(rpcStatus(Buffer.from(await bomb.arrayBuffer())).message, /decompressed/);

  assert.equal((await post('{}', { 'content-type': 'text/plain' })).status, 415);
  assert.equal((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' })).status, 415);
  assert.equal((await post('{}', { 'content-type': 'application/json' }, url.replace('/v1/traces', '/v1/metrics'))).status, 404);
  const get = await fetch(url);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
});

test('fuzz: random bytes, truncated protobuf, deep JSON and wrong types never stop the receiver', async () => {
  const { ExportTraceServiceRequest } = otlpTypes();
  const good = JSON.parse(JSON.stringify(exportRequest(requestTrace())), (key, value) =>
    ['traceId', 'spanId', 'parentSpanId'].includes(key) ? Buffer.from(value, 'hex') : value,
  );
  const encoded = Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(good)).finish());
  const bodies: Array<[string, Buffer | string]> = [];
  for (let i = 0; i < 40; i++) bodies.push(['application/x-protobuf', randomBytes(1 + Math.floor(Math.random() * 512))]);
  for (let cut = 1; cut < encoded.length; cut += Math.max(1, Math.floor(encoded.length / 30)))
    bodies.push(['application/x-protobuf', encoded.subarray(0, cut)]);
  for (let i = 0; i < 20; i++) {
    const flipped = Buffer.from(encoded);
    flipped[Math.floor(Math.random() * flipped.length)] ^= 0xff;
    bodies.push(['application/x-protobuf', flipped]);
  }
  bodies.push(['application/json', '['.repeat(20_000) + ']'.repeat(20_000)]);
  bodies.push([
    'application/json',
    `{"resourceSpans":[{"scopeSpans":[{"spans":[${'{"attributes":[{"key":"k","value":{"kvlistValue":{"values":['.repeat(500)}]}}]}]}]}`,
  ]);
  for (const wrong of [
    1,
    'x',
    null,
    true,
    [],
    { resourceSpans: {} },
    { resourceSpans: [{ resource: 5, scopeSpans: [{ scope: 'x', spans: [{ traceId: 5, spanId: [], kind: {}, attributes: 'no', events: 7 }] }] }] },
  ]) {
    bodies.push(['application/json', JSON.stringify(wrong)]);
  }
  bodies.push(['application/json', randomBytes(300)]);
  for (const [type, body] of bodies) {
    const res = await post(body, { 'content-type': type });
    assert.ok([200, 400].includes(res.status), `${res.status} for ${type}`);
    await res.arrayBuffer();
  }
  server.sweep(Date.now() + 60_000);
  await server.idle();
  const res = await post(
    JSON.stringify(
      exportRequest([
        span({
          spanId: SERVER,
          traceId: 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2',
          kind: 2,
          start: 0,
          end: 5,
          attributes: { 'http.request.method': 'GET', 'url.path': '/after-fuzz' },
        }),
      ]),
    ),
    { 'content-type': 'application/json' },
  );
  assert.equal(res.status, 200);
  await eventually(async () => (await store.index()).some((row) => row.name === 'GET /after-fuzz'));
  assert.deepEqual(
    logged.filter((line) => /unexpected|could not/.test(line)),
    [],
  );
});
