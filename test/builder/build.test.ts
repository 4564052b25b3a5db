import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { buildCapture as buildStored } from '../../src/builder/buildCapture';
import { readableCapture } from '../../src/capture/readableCapture';
import { emptyFold, foldCall } from '../../src/builder/fold';
import { resolveConfig } from '../../src/config/resolve';
import { GraphqlCapture } from '../../src/response/GraphqlCapture';
import { JsonCapture } from '../../src/response/JsonCapture';
import type { CallInput, UnitInput } from '../../src/builder/input';
import type { ProbeConfig } from '../../src/config/types';

const T0 = 1_700_000_000_000;
/** The capture as readers get it from a store (a JSON body is stored once: test/builder/body-kinds.test.ts). */
const buildCapture = (...args: Parameters<typeof buildStored>) => readableCapture(buildStored(...args));
const config = (file: ProbeConfig = {}) => resolveConfig({ root: '/app', configFile: null, file, env: {} });
const body = (text: string | Buffer, truncatedAt?: number) => {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const kept = truncatedAt === undefined ? bytes : bytes.subarray(0, truncatedAt);
  return { chunks: [kept], size: bytes.length, truncated: truncatedAt !== undefined };
};

function call(over: Partial<CallInput> = {}): CallInput {
  return {
    spanId: 'a1',
    parentSpanId: 'root1',
    method: 'get',
    url: 'https://api.test/users/42/orders/3f2b1c4d5e6f7a8b9c0d?token=t&q=1',
    requestHeaders: { Authorization: 'Bearer x', accept: 'application/json' },
    requestBody: null,
    status: 200,
    responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
    responseBody: body('{"id":1,"password":"p","nested":{"api_key":"k"}}'),
    clientDecodes: false,
    start: T0 + 10,
    end: T0 + 30,
    timing: { dns: 1, connect: 2, tls: 3, wait: 4, download: 5, remote: '10.0.0.1:443', protocol: 'HTTP/1.1', redirects: 0 },
    error: null,
    pool: null,
    fake: false,
    origin: { file: 'src/app.js', line: 12, chain: ['src/app.js:12 handler'] },
    ...over,
  };
}

function unit(calls: CallInput[], over: Partial<UnitInput> = {}): UnitInput {
  return {
    id: 'cap_00000001',
    type: 'request',
    name: 'GET /x',
    status: '200',
    parentId: null,
    traceId: 'f'.repeat(32),
    linkedVia: null,
    rootSpanId: 'root1',
    startedAt: T0,
    endedAt: T0 + 100,
    endedBy: 'response',
    label: null,
    tags: [],
    jobId: null,
    meta: { pid: 1, hostname: 'h', node: 'v24', service: 's' },
    request: null,
    spans: [],
    calls,
    pools: [],
    ...over,
  };
}

test('a row has every SPEC 2.1 field, masked', () => {
  const capture = buildCapture(unit([call()]), config());
  const row = capture.sections.http![0]!;
  assert.deepEqual(
    Object.keys(row).sort(),
    [
      'duration',
      'endpoint',
      'exception',
      'failed',
      'fake',
      'host',
      'method',
      'origin',
      'pool',
      'request_body',
      'request_bytes',
      'request_headers',
      'request_payload',
      'response_body',
      'response_bytes',
      'response_capture',
      'response_headers',
      'status',
      'time',
      'timing',
      'url',
    ].sort(),
  );
  assert.equal(row.method, 'GET');
  assert.equal(row.url, 'https://api.test/users/42/orders/3f2b1c4d5e6f7a8b9c0d?token=********&q=1');
  assert.equal(row.host, 'api.test');
  assert.equal(row.endpoint, 'GET https://api.test/users/{id}/orders/{id}');
  assert.equal(row.request_headers.authorization, '********');
  assert.deepEqual(row.response_capture, {
    capture: 'JsonCapture',
    cards: { id: 1, password: '********', nested: { api_key: '********' } },
    raw: '{"id":1,"password":"********","nested":{"api_key":"********"}}',
  });
  assert.equal(row.response_body, null, 'no bodies unless asked');
  assert.equal(row.duration, 20);
  assert.equal(row.time, 10);
  assert.deepEqual(row.timing, { dns: 1, connect: 2, tls: 3, wait: 4, download: 5, remote: '10.0.0.1:443', protocol: 'HTTP/1.1', redirects: 0 });
  assert.equal(row.failed, false);
  assert.equal(row.exception, null);
  assert.equal(capture.started_at, T0 / 1000);
  assert.equal(capture.duration, 100);
});

test('a failed connection: no status, headers, size or timing; exception with its cause chain', () => {
  const capture = buildCapture(
    unit([
      call({
        status: null,
        responseHeaders: {},
        responseBody: null,
        timing: null,
        error: {
          class: 'TypeError',
          message: 'fetch failed',
          code: null,
          causes: [{ class: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' }],
        },
      }),
    ]),
    config(),
  );
  const row = capture.sections.http![0]!;
  assert.equal(row.status, null);
  assert.deepEqual(row.response_headers, {});
  assert.equal(row.response_bytes, null);
  assert.equal(row.timing, null);
  assert.equal(row.failed, true);
  assert.deepEqual(row.exception, {
    class: 'TypeError',
    message: 'fetch failed: connect ECONNREFUSED 127.0.0.1:1',
    code: null,
    file: 'src/app.js:12',
    previous: [{ class: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' }],
  });
  assert.deepEqual(capture.summary.errors, [
    'HTTP call failed: GET https://api.test/users/42/orders/3f2b1c4d5e6f7a8b9c0d?token=********&q=1 (connect ECONNREFUSED 127.0.0.1:1)',
  ]);
});

test('summary lists the first three failures; totals count every call; max_rows caps rows', () => {
  const calls = Array.from({ length: 6 }, (_, i) =>
    call({ spanId: `s${i}`, start: T0 + i, end: T0 + i + 2, status: i % 2 ? 500 : 200, url: `https://h${i % 2}.test/p/${i}` }),
  );
  const capture = buildCapture(unit(calls), config({ lenses: { HttpClientLens: { max_rows: 2 } } }));
  assert.equal(capture.sections.http!.length, 2);
  assert.equal(capture.summary.dropped_rows, 4);
  assert.deepEqual(capture.summary.totals, { http_ms: 12, http_by_host: { 'h0.test': 3, 'h1.test': 3 }, http_calls: 6, http_failed: 3 });
  assert.deepEqual(capture.summary.errors, [
    'HTTP call failed: GET https://h1.test/p/1 (500)',
    'HTTP call failed: GET https://h1.test/p/3 (500)',
    'HTTP call failed: GET https://h1.test/p/5 (500)',
  ]);
  assert.equal(capture.spans.filter((s) => s.kind === 'http').length, 2);
});

test('no calls: no totals; a unit without the lens has no http section', () => {
  assert.equal(buildCapture(unit([]), config()).summary.totals, undefined);
  assert.equal(buildCapture(unit([call()]), config({ lenses: { HttpClientLens: false } })).sections.http, undefined);
});

test('payloads: JSON and form as masked fields; other bodies only with bodies: true, their secret-named pairs masked as text', () => {
  const json = buildCapture(
    unit([call({ method: 'POST', requestHeaders: { 'content-type': 'application/json' }, requestBody: body('{"user":"ada","password":"x"}') })]),
    config({ lenses: { HttpClientLens: { bodies: true } } }),
  ).sections.http![0]!;
  assert.deepEqual(json.request_payload, { user: 'ada', password: '********' });
  assert.equal(json.request_body, '{"user":"ada","password":"********"}');
  assert.equal(json.request_bytes, 29);
  const form = buildCapture(
    unit([call({ method: 'POST', requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' }, requestBody: body('a=1&client_secret=s') })]),
    config(),
  ).sections.http![0]!;
  assert.deepEqual(form.request_payload, { a: '1', client_secret: '********' });
  assert.equal(form.request_body, null);
  const text = buildCapture(
    unit([
      call({
        method: 'POST',
        requestHeaders: { 'content-type': 'text/plain' },
        requestBody: body('password=hidden&user=visible'),
        responseHeaders: { 'content-type': 'text/plain' },
        responseBody: body('note: token=hidden'),
      }),
    ]),
    config({ lenses: { HttpClientLens: { bodies: true } } }),
  ).sections.http![0]!;
  assert.equal(text.request_payload, null);
  assert.equal(text.request_body, 'password=********&user=visible');
  assert.equal(text.response_capture, null);
  assert.equal(text.response_body, 'note: token=********');
});

test('truncated bodies keep their full size and skip the JSON capture', () => {
  const big = JSON.stringify({ items: 'x'.repeat(500) });
  const row = buildCapture(unit([call({ responseBody: body(big, 100) })]), config({ lenses: { HttpClientLens: { bodies: true, max_body_bytes: 100 } } }))
    .sections.http![0]!;
  assert.equal(row.truncated, true);
  assert.equal(row.response_bytes, big.length);
  assert.equal(row.response_capture, null);
  assert.equal(row.response_body!.length, 100);
});

test('content-encoding is decoded for the capture; fetch sizes count decoded bytes', () => {
  const raw = '{"ok":true,"secret":"s"}';
  for (const [encoding, encoded] of [
    ['gzip', zlib.gzipSync(raw)],
    ['br', zlib.brotliCompressSync(raw)],
    ['deflate', zlib.deflateSync(raw)],
  ] as const) {
    const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
    const row = buildCapture(unit([call({ responseHeaders: headers, responseBody: body(encoded), clientDecodes: true })]), config()).sections.http![0]!;
    assert.deepEqual(row.response_capture!.cards, { ok: true, secret: '********' }, encoding);
    assert.equal(row.response_bytes, raw.length);
    const wire = buildCapture(unit([call({ responseHeaders: headers, responseBody: body(encoded), clientDecodes: false })]), config()).sections.http![0]!;
    assert.equal(wire.response_bytes, encoded.length);
  }
});

test('invalid UTF-8, binary and invalid JSON never break the builder', () => {
  const row = buildCapture(
    unit([call({ responseBody: body(Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28])) }), call({ spanId: 'b', responseBody: body('{"not": json') })]),
    config({ lenses: { HttpClientLens: { bodies: true } } }),
  ).sections.http!;
  assert.equal(row[0]!.response_capture!.cards, null);
  assert.equal(row[1]!.response_capture!.cards, null);
});

test('response_types: wildcards, first match wins, custom captures, setting replaces the default', () => {
  class TextCapture {
    static capture({ body }: { body: string }) {
      return { cards: { length: body.length, token: 'leak' } };
    }
  }
  const cfg = config({ lenses: { HttpClientLens: { capture: { response_types: { 'text/*': TextCapture as never, '*/*': GraphqlCapture as never } } } } });
  const text = buildCapture(unit([call({ responseHeaders: { 'content-type': 'text/plain' }, responseBody: body('hello') })]), cfg).sections.http![0]!;
  assert.deepEqual(text.response_capture, { capture: 'TextCapture', cards: { length: 5, token: '********' }, raw: 'hello' });
  const json = buildCapture(unit([call()]), cfg).sections.http![0]!;
  assert.equal(json.response_capture!.capture, 'GraphqlCapture', 'application/json no longer maps to JsonCapture');
});

test('GraphqlCapture formats the query and masks secret literals', () => {
  const cfg = config({ lenses: { HttpClientLens: { capture: { response_types: { 'application/json': GraphqlCapture as never } } } } });
  const query = 'mutation { login(user: "ada", password: "hunter2") { token } }';
  const row = buildCapture(
    unit([
      call({
        method: 'POST',
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: body(JSON.stringify({ query })),
        responseBody: body('{"data":{"login":{"token":"abc"}}}'),
      }),
    ]),
    cfg,
  ).sections.http![0]!;
  assert.equal(row.request_formats!.query!.format, 'graphql');
  assert.equal(row.request_formats!.query!.text, 'mutation {\n  login(user: "ada", password: "********") {\n    token\n  }\n}');
  assert.ok(!JSON.stringify(row).includes('hunter2'));
  assert.deepEqual(row.response_capture!.cards, { data: { login: { token: '********' } } });
});

test('userinfo passwords are always masked; fakes carry no timing', () => {
  const row = buildCapture(unit([call({ url: 'https://bob:pw@api.test/x', fake: true })]), config()).sections.http![0]!;
  assert.equal(row.url, 'https://bob:********@api.test/x');
  assert.equal(row.timing, null);
  assert.equal(row.fake, true);
  assert.ok(!JSON.stringify(buildCapture(unit([call({ url: 'https://bob:pw@api.test/x' })]), config()).spans).includes(':pw@'));
});

test('spans: one http span per row, pool calls under their pool span', () => {
  const calls = [
    call({ spanId: 'c1', pool: 1, start: T0 + 5, end: T0 + 15 }),
    call({ spanId: 'c2', pool: 1, start: T0 + 6, end: T0 + 25 }),
    call({ spanId: 'c3', parentSpanId: 'db1' }),
  ];
  const capture = buildCapture(
    unit(calls, { pools: [{ number: 1, parentSpanId: 'root1' }], spans: [{ id: 'db1', parentId: 'root1', name: 'db', start: T0 + 1, end: T0 + 50 }] }),
    config(),
  );
  const pool = capture.spans.find((s) => s.kind === 'pool')!;
  assert.deepEqual([pool.start, pool.end, pool.meta.parent_id], [5, 25, 'root1']);
  const http = capture.spans.filter((s) => s.kind === 'http');
  assert.deepEqual(
    http.map((s) => [s.id, s.meta.parent_id, s.meta.row]),
    [
      ['c1', 'pool-1', 0],
      ['c2', 'pool-1', 1],
      ['c3', 'db1', 2],
    ],
  );
});

test('rows of one URL share its parsed facts, but never across masking rules or methods', () => {
  const url = 'https://api.test/users/7?session=s1&q=1';
  const defaults = config();
  const strict = config({ mask: { inputs: ['q'] } } as ProbeConfig);
  const first = buildCapture(unit([call({ url, method: 'get' }), call({ url, method: 'delete' })]), defaults).sections.http!;
  assert.deepEqual(
    first.map((row) => row.endpoint),
    ['GET https://api.test/users/{id}', 'DELETE https://api.test/users/{id}'],
  );
  assert.equal(first[0]!.url, first[1]!.url);
  // Another config's masker masks the same URL by its own rules.
  const other = buildCapture(unit([call({ url })]), strict).sections.http![0]!;
  assert.match(other.url, /q=\*{8}/);
  assert.doesNotMatch(first[0]!.url, /q=\*{8}/);
  // A URL that does not parse keeps its text, without the query, as its endpoint.
  const odd = buildCapture(unit([call({ url: 'not a url?x=1' })]), defaults).sections.http![0]!;
  assert.equal(odd.endpoint, 'GET not a url');
  assert.equal(odd.host, '');
  // Nothing of a credential reaches an endpoint, even when the URL does not parse (a port out of range).
  const bad = buildCapture(unit([call({ url: 'https://bob:hunter2@api.test:99999/x?token=t1#access_token=t2' })]), defaults).sections.http![0]!;
  assert.equal(bad.endpoint, 'GET https://api.test:99999/x');
  assert.doesNotMatch(bad.url, /hunter2|t1|t2/);
});

test('the built-in JSON capture gives what the generic capture path gives, from one parse', () => {
  // A subclass is a user capture to the builder: it takes the generic path (capture, then mask, then raw).
  class MyJson extends JsonCapture {}
  const types = (capture: unknown) =>
    ({ lenses: { HttpClientLens: { capture: { response_types: { 'application/json': capture, 'text/plain': capture } } } } }) as unknown as ProbeConfig;
  const bodies = ['{"id":1,"token":"t","list":[{"password":"p"}]}', '[1,2,{"secret":"s"}]', 'not json {', '{"a": 1,   "b": "x"}'];
  for (const text of bodies) {
    for (const type of ['application/json', 'text/plain']) {
      const input = () => unit([call({ responseHeaders: { 'content-type': type }, responseBody: body(text) })]);
      const builtIn = buildCapture(input(), config(types(JsonCapture))).sections.http![0]!.response_capture;
      const generic = buildCapture(input(), config(types(MyJson))).sections.http![0]!.response_capture;
      assert.deepEqual({ ...builtIn, capture: 'x' }, { ...generic, capture: 'x' }, `${type}: ${text}`);
      assert.equal(builtIn?.capture, 'JsonCapture');
    }
  }
});

test('one totals path: calls folded past max_rows give the same summary, errors and pool span as the same calls kept', () => {
  const refused = { class: 'Error', message: 'fetch failed', code: null, causes: [{ class: 'Error', message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' }] };
  const calls = Array.from({ length: 8 }, (_, i) =>
    call({
      spanId: `s${i}`,
      start: T0 + i,
      end: i === 7 ? null : T0 + i + 2.5,
      pool: i >= 2 ? 1 : null,
      url: `https://h${i % 3}.test/p/${i}?token=secret${i}`,
      ...(i === 3 ? { status: null, error: refused } : i % 3 === 1 ? { status: 503 } : {}),
    }),
  );
  const cfg = config({ lenses: { HttpClientLens: { max_rows: 2 } } });
  const pools = [{ number: 1, parentSpanId: null }];
  const whole = buildCapture(unit(calls, { pools }), cfg);
  // The recorder folds finished calls past the cap as they pile up; the rest stay records until the unit ends.
  const folded = emptyFold();
  for (const c of calls.slice(2, 6)) foldCall(folded, c, c.start, cfg.http!.masker);
  const split = buildCapture(unit([...calls.slice(0, 2), ...calls.slice(6)], { pools, folded }), cfg);
  assert.deepEqual(split.summary, whole.summary);
  assert.deepEqual(
    split.spans.find((s) => s.kind === 'pool'),
    whole.spans.find((s) => s.kind === 'pool'),
  );
  assert.equal(whole.summary.totals!.http_calls, 8);
  assert.ok(
    whole.summary.errors.every((line) => !line.includes('secret')),
    'error lines carry masked URLs',
  );
  assert.deepEqual(whole.summary.errors, [
    'HTTP call failed: GET https://h1.test/p/1?token=******** (503)',
    'HTTP call failed: GET https://h0.test/p/3?token=******** (connect ECONNREFUSED)',
    'HTTP call failed: GET https://h1.test/p/4?token=******** (503)',
  ]);
});
