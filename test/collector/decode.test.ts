import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJsonExport } from '../../src/collector/decodeJson';
import { decodeProtobufExport } from '../../src/collector/decodeProtobuf';
import { OtlpDecodeError } from '../../src/collector/model';
import { otlpTypes } from '../../src/collector/otlpProto';
import { OTLP_PROTO_SOURCES } from '../../src/collector/otlpProtoSources';
import { CLIENT, SERVER, TRACE, exportRequest, requestTrace, span } from './otlpFixtures';

/** The JSON payload re-encoded as binary protobuf with the official definitions (ids hex → bytes). */
function toProtobuf(request: Record<string, unknown>): Buffer {
  const { ExportTraceServiceRequest } = otlpTypes();
  const withBytes = JSON.parse(JSON.stringify(request), (key, value) =>
    ['traceId', 'spanId', 'parentSpanId'].includes(key) && typeof value === 'string' ? Buffer.from(value, 'hex') : value,
  );
  return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(withBytes)).finish());
}

test('the embedded .proto sources are the vendored files, unchanged', () => {
  for (const [file, text] of Object.entries(OTLP_PROTO_SOURCES)) {
    assert.equal(
      text,
      readFileSync(path.join(__dirname, '..', '..', 'src', 'collector', 'proto', file), 'utf8'),
      `${file}: run node test/collector/fixtures/embed-protos.mjs`,
    );
  }
});

test('OTLP/JSON: hex ids, int64 times as strings, every AnyValue kind', () => {
  const body = exportRequest([
    span({ spanId: SERVER, kind: 2, start: 0, end: 12.5, name: 'GET /', attributes: { s: 'x', i: 7, d: 1.5, b: true, arr: ['a', 'b'] } }),
  ]);
  (body.resourceSpans as any)[0].scopeSpans[0].spans[0].attributes.push(
    { key: 'kv', value: { kvlistValue: { values: [{ key: 'inner', value: { intValue: 3 } }] } } },
    { key: 'bytes', value: { bytesValue: 'AQI=' } },
    { key: 'big', value: { intValue: '9223372036854775807' } },
    { key: 'empty', value: {} },
  );
  const decoded = decodeJsonExport(Buffer.from(JSON.stringify(body)));
  assert.equal(decoded.rejected, 0);
  assert.equal(decoded.spans.length, 1);
  const [s] = decoded.spans;
  assert.equal(s!.traceId, TRACE);
  assert.equal(s!.spanId, SERVER);
  assert.equal(s!.parentSpanId, null);
  assert.equal(s!.kind, 2);
  assert.equal(s!.start, 1_700_000_000_000);
  assert.equal(s!.end, 1_700_000_000_012.5);
  assert.deepEqual(s!.attributes, { s: 'x', i: 7, d: 1.5, b: true, arr: ['a', 'b'], kv: { inner: 3 }, bytes: 'AQI=', big: '9223372036854775807', empty: null });
  assert.deepEqual(s!.resource, { 'service.name': 'billing', 'host.name': 'worker-3', 'process.pid': 4242 });
  assert.deepEqual(s!.scope, { name: '@opentelemetry/instrumentation-http', version: '0.223.0' });
});

test('protobuf decodes to the same spans as the JSON mapping', () => {
  const request = exportRequest(requestTrace());
  const fromJson = decodeJsonExport(Buffer.from(JSON.stringify(request)));
  const fromProto = decodeProtobufExport(toProtobuf(request));
  assert.equal(fromJson.spans.length, 3);
  assert.deepEqual(fromProto, fromJson);
  assert.equal(fromProto.spans.find((s) => s.spanId === CLIENT)!.attributes['network.protocol.version'], '2');
});

test('span flags tell whether the parent is remote', () => {
  const decoded = decodeJsonExport(
    Buffer.from(
      JSON.stringify(
        exportRequest([
          span({ spanId: SERVER, parentSpanId: CLIENT, kind: 2, start: 0, end: 1, flags: 0x301 }),
          span({ spanId: CLIENT, kind: 3, start: 0, end: 1, flags: 0x101 }),
          span({ spanId: 'aaaaaaaaaaaaaaaa', kind: 3, start: 0, end: 1 }),
        ]),
      ),
    ),
  );
  assert.deepEqual(
    decoded.spans.map((s) => s.parentIsRemote),
    [true, false, null],
  );
});

test('snake_case field names and enum names are accepted', () => {
  const body = {
    resource_spans: [
      {
        scope_spans: [
          {
            spans: [
              {
                trace_id: TRACE,
                span_id: SERVER,
                kind: 'SPAN_KIND_CONSUMER',
                start_time_unix_nano: 1000000,
                end_time_unix_nano: 3000000,
                status: { code: 'STATUS_CODE_ERROR' },
              },
            ],
          },
        ],
      },
    ],
  };
  const [s] = decodeJsonExport(Buffer.from(JSON.stringify(body))).spans;
  assert.equal(s!.kind, 5);
  assert.equal(s!.status.code, 2);
  assert.equal(s!.end - s!.start, 2);
});

test('malformed spans are rejected one by one; a malformed request is an OtlpDecodeError', () => {
  const decoded = decodeJsonExport(
    Buffer.from(
      JSON.stringify(
        exportRequest([
          span({ spanId: SERVER, kind: 2, start: 0, end: 1 }),
          span({ spanId: 'xyz', kind: 2, start: 0, end: 1 }),
          span({ spanId: SERVER, traceId: '00000000000000000000000000000000', kind: 2, start: 0, end: 1 }),
          { ...span({ spanId: CLIENT, kind: 3, start: 0, end: 1 }), startTimeUnixNano: 'soon' },
          'not a span' as unknown as Record<string, unknown>,
        ]),
      ),
    ),
  );
  assert.equal(decoded.spans.length, 1);
  assert.equal(decoded.rejected, 4);
  assert.match(decoded.rejectReason!, /invalid spanId/);
  for (const bad of ['', 'null', '[]', '"x"', '{"resourceSpans": 3}', '{"resourceSpans": [1]}', '{"resourceSpans": [{"scopeSpans": {}}]}', '{']) {
    assert.throws(() => decodeJsonExport(Buffer.from(bad)), OtlpDecodeError, bad);
  }
  assert.deepEqual(decodeJsonExport(Buffer.from('{}')), { spans: [], rejected: 0, rejectReason: null });
  assert.throws(() => decodeProtobufExport(Buffer.from([0x0a, 0x05, 0x01])), OtlpDecodeError);
  assert.throws(() => decodeProtobufExport(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), OtlpDecodeError);
});

test('absurdly nested attribute values are cut, not followed', () => {
  let value: Record<string, unknown> = { stringValue: 'deep' };
  for (let i = 0; i < 1000; i++) value = { arrayValue: { values: [value] } };
  const body = exportRequest([span({ spanId: SERVER, kind: 2, start: 0, end: 1 })]);
  (body.resourceSpans as any)[0].scopeSpans[0].spans[0].attributes.push({ key: 'deep', value });
  const [s] = decodeJsonExport(Buffer.from(JSON.stringify(body))).spans;
  let depth = 0;
  let cursor: unknown = s!.attributes.deep;
  while (Array.isArray(cursor)) {
    cursor = cursor[0];
    depth++;
  }
  assert.ok(depth <= 17, String(depth));
});
