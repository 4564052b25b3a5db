import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OtlpSpan } from '../../src/collector/model';
import type { SpanGroup } from '../../src/collector/SpanGroup';
import { decodeJsonExport } from '../../src/collector/decodeJson';
import { UnitAssembler } from '../../src/collector/UnitAssembler';
import { unitFromSpans } from '../../src/collector/unitFromSpans';
import { CLIENT, INTERNAL, SERVER, TRACE, exportRequest, requestTrace, span, type SpanSpec } from './otlpFixtures';

function spansOf(specs: Array<Record<string, unknown>>, resource?: Record<string, unknown>): OtlpSpan[] {
  return decodeJsonExport(Buffer.from(JSON.stringify(exportRequest(specs, resource)))).spans;
}

function client(spanId: string, parentSpanId: string | undefined, attributes: Record<string, unknown>, extra: Partial<SpanSpec> = {}): Record<string, unknown> {
  return span({ spanId, parentSpanId, kind: 3, start: 20, end: 30, name: 'HTTP', attributes, ...extra });
}

const T0 = 1_700_000_000_000;

test('a SERVER span and the spans under it → a request unit (stable semconv)', () => {
  const spans = spansOf(requestTrace());
  const unit = unitFromSpans({ type: 'request', root: spans[0]!, spans }, 'capture-id-1', 'fallback');
  assert.equal(unit.id, 'capture-id-1');
  assert.equal(unit.type, 'request');
  assert.equal(unit.name, 'GET /invoices/7');
  assert.equal(unit.status, '200');
  assert.equal(unit.endedBy, 'response');
  assert.equal(unit.traceId, TRACE);
  assert.equal(unit.linkedVia, 'otlp');
  assert.equal(unit.rootSpanId, SERVER);
  assert.equal(unit.parentId, null);
  assert.equal(unit.startedAt, T0);
  assert.equal(unit.endedAt, T0 + 100);
  assert.deepEqual(unit.meta, { pid: 4242, hostname: 'worker-3', node: '', service: 'billing' });
  assert.deepEqual(unit.request, {
    method: 'GET',
    url: 'https://api.example.test:8443/invoices/7?full=1',
    route: '/invoices/:id',
    status: 200,
    headers: { accept: 'application/json' },
    remoteAddress: '10.0.0.9',
  });
  assert.deepEqual(
    unit.spans.map((s) => [s.id, s.parentId, s.name]),
    [
      [SERVER, null, 'GET /invoices/:id'],
      [INTERNAL, SERVER, 'load invoice'],
    ],
  );
  assert.equal(unit.calls.length, 1);
  const call = unit.calls[0]!;
  assert.deepEqual(
    { ...call, responseBody: call.responseBody && { ...call.responseBody, chunks: call.responseBody.chunks.length } },
    {
      spanId: CLIENT,
      parentSpanId: INTERNAL,
      method: 'GET',
      url: 'https://ledger.example.test/v1/entries?token=abc',
      // The W3C trace context its span names: the link key of calls the collector receives (docs/flows.md).
      traceparent: `00-${TRACE}-${CLIENT}-01`,
      requestHeaders: {},
      requestBody: null,
      status: 200,
      responseHeaders: { 'content-type': 'application/json', 'content-length': '120' },
      responseBody: { chunks: 0, size: 120, truncated: false },
      clientDecodes: false,
      start: T0 + 10,
      end: T0 + 50.5,
      timing: { redirects: 0, remote: '10.1.2.3:443', protocol: 'HTTP/2' },
      error: null,
      pool: null,
      fake: false,
      origin: null,
    },
  );
});

test('old HTTP semconv names are read when the stable ones are missing', () => {
  const spans = spansOf([
    span({
      spanId: SERVER,
      kind: 2,
      start: 0,
      end: 10,
      attributes: {
        'http.method': 'post',
        'http.scheme': 'http',
        'http.host': 'shop.test:8080',
        'http.target': '/cart?x=1',
        'http.status_code': 302,
        'net.peer.ip': '::1',
      },
    }),
    client(CLIENT, SERVER, {
      'http.method': 'PUT',
      'http.url': 'http://stock.test/items/5',
      'http.status_code': 204,
      'net.peer.ip': '192.0.2.1',
      'net.peer.port': 80,
      'http.flavor': '1.1',
    }),
  ]);
  const unit = unitFromSpans({ type: 'request', root: spans[0]!, spans }, 'id', 'x');
  assert.equal(unit.name, 'POST /cart');
  assert.equal(unit.status, '302');
  assert.equal(unit.request!.url, 'http://shop.test:8080/cart?x=1');
  assert.equal(unit.request!.remoteAddress, '::1');
  const call = unit.calls[0]!;
  assert.equal(call.method, 'PUT');
  assert.equal(call.url, 'http://stock.test/items/5');
  assert.equal(call.status, 204);
  assert.deepEqual(call.timing, { redirects: 0, remote: '192.0.2.1:80', protocol: 'HTTP/1.1' });
});

test('a call URL is rebuilt from its parts; _OTHER methods use the original', () => {
  const spans = spansOf([
    client(CLIENT, undefined, {
      'http.request.method': '_OTHER',
      'http.request.method_original': 'purge',
      'url.scheme': 'https',
      'server.address': 'cdn.test',
      'server.port': 8443,
      'url.path': '/a',
      'url.query': '?b=1',
    }),
  ]);
  const call = unitFromSpans({ type: 'command', root: null, spans }, 'id', 'x').calls[0]!;
  assert.equal(call.method, 'PURGE');
  assert.equal(call.url, 'https://cdn.test:8443/a?b=1');
});

test('a call without a response: the exception event gives class, message and code; timing is null', () => {
  const spans = spansOf([
    client(
      CLIENT,
      undefined,
      { 'http.request.method': 'GET', 'url.full': 'http://127.0.0.1:1/', 'error.type': 'ECONNREFUSED' },
      {
        status: { code: 2, message: 'connect ECONNREFUSED 127.0.0.1:1' },
        events: [
          {
            name: 'exception',
            time: 25,
            attributes: {
              'exception.type': 'ECONNREFUSED',
              'exception.message': 'connect ECONNREFUSED 127.0.0.1:1',
              'exception.stacktrace': 'Error: connect ECONNREFUSED 127.0.0.1:1\n    at TCPConnectWrap.afterConnect',
            },
          },
        ],
      },
    ),
    client(
      'bbbbbbbbbbbbbbbb',
      undefined,
      { 'http.request.method': 'GET', 'url.full': 'http://x.test/' },
      { events: [{ name: 'exception', time: 25, attributes: { 'exception.type': 'TypeError', 'exception.message': 'fetch failed' } }] },
    ),
    client('cccccccccccccccc', undefined, { 'http.request.method': 'GET', 'url.full': 'http://y.test/', 'error.type': 'timeout' }),
  ]);
  const [refused, typed, bare] = unitFromSpans({ type: 'command', root: null, spans }, 'id', 'x').calls;
  assert.deepEqual(refused!.error, { class: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED', causes: [] });
  assert.equal(refused!.timing, null);
  assert.equal(refused!.status, null);
  assert.equal(refused!.responseBody, null);
  assert.deepEqual(typed!.error, { class: 'TypeError', message: 'fetch failed', code: null, causes: [] });
  assert.deepEqual(bare!.error, { class: 'timeout', message: 'timeout', code: null, causes: [] });
});

test("Probe's own attributes fill pool, fake, origin, bodies, timings, label and tags", () => {
  const spans = spansOf([
    span({
      spanId: SERVER,
      kind: 5,
      start: 0,
      end: 50,
      name: 'emails send',
      attributes: { 'probe.label': 'nightly', 'probe.tags': ['batch', 'mail'], 'probe.job.id': 'job-77' },
      status: { code: 2 },
    }),
    client(CLIENT, SERVER, {
      'http.request.method': 'POST',
      'url.full': 'https://mail.test/send',
      'http.response.status_code': 202,
      'probe.pool': 2,
      'probe.origin.file': 'src/mailer.js',
      'probe.origin.line': 41,
      'probe.origin.chain': ['src/mailer.js:41 send', 'src/job.js:9 run'],
      'probe.request.body': '{"to":"a@b.test","password":"x"}',
      'probe.response.body': '{"queued":true}',
      'probe.timing.dns': 1.5,
      'probe.timing.wait': 7,
      'probe.redirects': 1,
      'probe.url': 'https://mail.test/old-send',
    }),
    client('dddddddddddddddd', SERVER, {
      'http.request.method': 'GET',
      'url.full': 'https://mail.test/fake',
      'http.response.status_code': 200,
      'probe.fake': true,
      'network.peer.address': '1.1.1.1',
    }),
  ]);
  const unit = unitFromSpans({ type: 'job', root: spans[0]!, spans }, 'id', 'x');
  assert.equal(unit.type, 'job');
  assert.equal(unit.name, 'emails send');
  assert.equal(unit.status, 'failed');
  assert.equal(unit.endedBy, 'error');
  assert.equal(unit.jobId, 'job-77');
  assert.equal(unit.label, 'nightly');
  assert.deepEqual(unit.tags, ['batch', 'mail']);
  assert.equal(unit.request, null);
  const [real, fake] = unit.calls;
  assert.equal(real!.url, 'https://mail.test/old-send');
  assert.equal(real!.pool, 2);
  assert.deepEqual(real!.origin, { file: 'src/mailer.js', line: 41, chain: ['src/mailer.js:41 send', 'src/job.js:9 run'] });
  assert.equal(Buffer.concat(real!.requestBody!.chunks).toString(), '{"to":"a@b.test","password":"x"}');
  assert.equal(real!.requestBody!.size, 32);
  assert.equal(Buffer.concat(real!.responseBody!.chunks).toString(), '{"queued":true}');
  assert.deepEqual(real!.timing, { redirects: 1, dns: 1.5, wait: 7 });
  assert.equal(fake!.fake, true);
  assert.equal(fake!.timing, null);
});

test('rootless spans → a command unit named after the service, with the earliest start', () => {
  const spans = spansOf(
    [
      client(CLIENT, undefined, { 'http.request.method': 'GET', 'url.full': 'http://a.test/' }, { start: 40, end: 45 }),
      client(
        'eeeeeeeeeeeeeeee',
        undefined,
        { 'http.request.method': 'GET', 'url.full': 'http://b.test/' },
        { start: 5, end: 90, traceId: 'ffffffffffffffffffffffffffffffff' },
      ),
    ],
    { 'service.name': 'cron', 'process.runtime.name': 'cpython', 'process.runtime.version': '3.12.1' },
  );
  const unit = unitFromSpans({ type: 'command', root: null, spans }, 'id', 'x');
  assert.equal(unit.type, 'command');
  assert.equal(unit.name, 'cron');
  assert.equal(unit.status, 'done');
  assert.equal(unit.endedBy, 'exit');
  assert.equal(unit.startedAt, T0 + 5);
  assert.equal(unit.endedAt, T0 + 90);
  assert.equal(unit.rootSpanId, null);
  assert.equal(unit.meta.node, 'cpython 3.12.1');
  assert.equal(unit.meta.pid, 0);
  assert.deepEqual(
    unit.calls.map((c) => c.url),
    ['http://b.test/', 'http://a.test/'],
  );
});

function assembler(options: { settleMs?: number; orphanWaitMs?: number; commandIdleMs?: number; maxPendingSpans?: number } = {}) {
  const groups: SpanGroup[] = [];
  const a = new UnitAssembler({ settleMs: 100, orphanWaitMs: 1000, commandIdleMs: 500, ...options, onUnit: (g) => groups.push(g) });
  return { a, groups };
}

test('assembler: children sent before their root wait for it, then form one request', () => {
  const { a, groups } = assembler();
  const [server, internal, call] = spansOf(requestTrace());
  a.add([call!, internal!], 0);
  a.sweep(200);
  a.sweep(900);
  assert.equal(groups.length, 0, 'children wait for a parent that may still come');
  a.add([server!], 950);
  a.sweep(1000);
  assert.equal(groups.length, 0, 'the trace settles first');
  a.sweep(1050);
  assert.equal(groups.length, 1);
  assert.equal(groups[0]!.type, 'request');
  assert.equal(groups[0]!.root!.spanId, SERVER);
  assert.equal(groups[0]!.spans.length, 3);
  assert.equal(a.pendingSpans, 0);
});

test('assembler: a CONSUMER inside a request is its own job; a late child of a written unit is dropped', () => {
  const { a, groups } = assembler();
  const spans = spansOf([
    span({ spanId: SERVER, kind: 2, start: 0, end: 100, attributes: { 'http.request.method': 'GET', 'url.path': '/' } }),
    span({ spanId: INTERNAL, parentSpanId: SERVER, kind: 5, start: 10, end: 20, name: 'q process' }),
    client(CLIENT, INTERNAL, { 'http.request.method': 'GET', 'url.full': 'http://a.test/' }),
  ]);
  a.add(spans, 0);
  a.sweep(100);
  assert.deepEqual(
    groups.map((g) => [g.type, g.root!.spanId, g.spans.length]),
    [
      ['request', SERVER, 1],
      ['job', INTERNAL, 2],
    ],
  );
  a.add(spansOf([client('abababababababab', SERVER, { 'http.request.method': 'GET', 'url.full': 'http://late.test/' })]), 200);
  a.sweep(300);
  a.flush(400);
  assert.equal(groups.length, 2);
  assert.equal(a.late, 1);
});

test('assembler: rootless calls gather per process into one command once it is quiet', () => {
  const { a, groups } = assembler();
  const p1 = { 'service.name': 'sync', 'process.pid': 1 };
  const p2 = { 'service.name': 'sync', 'process.pid': 2 };
  a.add(spansOf([client('1111111111111111', undefined, { 'url.full': 'http://a.test/' }, { traceId: '11111111111111111111111111111111' })], p1), 0);
  a.add(spansOf([client('2222222222222222', undefined, { 'url.full': 'http://b.test/' }, { traceId: '22222222222222222222222222222222' })], p1), 300);
  a.add(spansOf([client('3333333333333333', undefined, { 'url.full': 'http://c.test/' }, { traceId: '33333333333333333333333333333333' })], p2), 300);
  a.sweep(500);
  assert.equal(groups.length, 0);
  a.sweep(1000);
  assert.equal(groups.length, 2);
  assert.deepEqual(groups.map((g) => [g.type, g.spans.length]).sort(), [
    ['command', 1],
    ['command', 2],
  ]);
});

test('assembler: a parent that never comes, or is known to be remote, leaves the span rootless', () => {
  const { a, groups } = assembler();
  a.add(spansOf([client(CLIENT, 'abcdefabcdefabcd', { 'url.full': 'http://a.test/' }, { flags: 0x301 })]), 0);
  a.add(spansOf([client('9999999999999999', 'fedcbafedcbafedc', { 'url.full': 'http://b.test/' }, { traceId: '99999999999999999999999999999999' })]), 0);
  a.sweep(100);
  a.sweep(700);
  assert.equal(groups.length, 1, 'the remote-parent span goes at once');
  assert.equal(groups[0]!.spans[0]!.spanId, CLIENT);
  a.sweep(1200);
  a.sweep(1800);
  assert.equal(groups.length, 2, 'the other after the orphan wait');
});

test('assembler: parent cycles in hostile input end, and the cap on held spans holds', () => {
  const { a, groups } = assembler({ maxPendingSpans: 2 });
  a.add(spansOf([client(CLIENT, INTERNAL, { 'url.full': 'http://a.test/' }), client(INTERNAL, CLIENT, { 'url.full': 'http://b.test/' })]), 0);
  a.add(spansOf([client('5555555555555555', 'abcdefabcdefabcd', { 'url.full': 'http://c.test/' }, { traceId: '55555555555555555555555555555555' })]), 0);
  assert.ok(a.pendingSpans <= 2);
  a.flush(10);
  assert.equal(a.pendingSpans, 0);
  assert.equal(
    groups.reduce((n, g) => n + g.spans.length, 0),
    3,
  );
});
