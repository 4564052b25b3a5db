/** Hand-made OTLP/JSON payloads (the JSON mapping: hex ids, int64 as strings) for the unit tests. */

export const TRACE = '5b8efff798038103d269b633813fc60c';
export const SERVER = 'eee19b7ec3c1b174';
export const CLIENT = 'eee19b7ec3c1b173';
export const INTERNAL = 'eee19b7ec3c1b172';

const T0 = 1_700_000_000_000_000_000n; // ns

export function ns(ms: number): string {
  return String(T0 + BigInt(Math.round(ms * 1e6)));
}

export function kv(key: string, value: unknown): { key: string; value: Record<string, unknown> } {
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  if (typeof value === 'number') return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
  if (Array.isArray(value)) return { key, value: { arrayValue: { values: value.map((v) => kv('', v).value) } } };
  throw new Error(`unsupported ${typeof value}`);
}

export interface SpanSpec {
  spanId: string;
  parentSpanId?: string;
  traceId?: string;
  name?: string;
  kind: number;
  start: number;
  end: number;
  attributes?: Record<string, unknown>;
  events?: Array<{ name: string; time: number; attributes: Record<string, unknown> }>;
  status?: { code: number; message?: string };
  flags?: number;
}

export function span(spec: SpanSpec): Record<string, unknown> {
  return {
    traceId: spec.traceId ?? TRACE,
    spanId: spec.spanId,
    ...(spec.parentSpanId ? { parentSpanId: spec.parentSpanId } : {}),
    name: spec.name ?? 'span',
    kind: spec.kind,
    startTimeUnixNano: ns(spec.start),
    endTimeUnixNano: ns(spec.end),
    attributes: Object.entries(spec.attributes ?? {}).map(([k, v]) => kv(k, v)),
    events: (spec.events ?? []).map((e) => ({ name: e.name, timeUnixNano: ns(e.time), attributes: Object.entries(e.attributes).map(([k, v]) => kv(k, v)) })),
    status: spec.status ?? {},
    ...(spec.flags !== undefined ? { flags: spec.flags } : {}),
  };
}

export function exportRequest(
  spans: Array<Record<string, unknown>>,
  resource: Record<string, unknown> = { 'service.name': 'billing', 'host.name': 'worker-3', 'process.pid': 4242 },
): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([k, v]) => kv(k, v)) },
        scopeSpans: [{ scope: { name: '@opentelemetry/instrumentation-http', version: '0.223.0' }, spans }],
      },
    ],
  };
}

/** A server span with one stable-semconv client call under an internal span. */
export function requestTrace(): Array<Record<string, unknown>> {
  return [
    span({
      spanId: SERVER,
      name: 'GET /invoices/:id',
      kind: 2,
      start: 0,
      end: 100,
      attributes: {
        'http.request.method': 'GET',
        'url.scheme': 'https',
        'server.address': 'api.example.test',
        'server.port': 8443,
        'url.path': '/invoices/7',
        'url.query': 'full=1',
        'http.route': '/invoices/:id',
        'http.response.status_code': 200,
        'client.address': '10.0.0.9',
        'http.request.header.accept': ['application/json'],
      },
    }),
    span({ spanId: INTERNAL, parentSpanId: SERVER, name: 'load invoice', kind: 1, start: 5, end: 60 }),
    span({
      spanId: CLIENT,
      parentSpanId: INTERNAL,
      name: 'GET',
      kind: 3,
      start: 10,
      end: 50.5,
      attributes: {
        'http.request.method': 'GET',
        'url.full': 'https://ledger.example.test/v1/entries?token=abc',
        'server.address': 'ledger.example.test',
        'server.port': 443,
        'http.response.status_code': 200,
        'network.peer.address': '10.1.2.3',
        'network.peer.port': 443,
        'network.protocol.version': '2',
        'http.response.header.content-type': ['application/json'],
        'http.response.header.content-length': ['120'],
      },
    }),
  ];
}
