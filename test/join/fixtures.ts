import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the app's own backend received it, whatever the wire format. */
export interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** Every attribute value and the span's description, flattened to text, to look for leaked data. */
  text: string;
  client: boolean;
}

/**
 * A loopback stand-in for the app's tracing backend: OTLP/HTTP JSON on /v1/traces, Sentry envelopes on
 * /api/<project>/envelope/.
 */
export async function startReceiver(): Promise<{ url: string; port: number; spans: ExportedSpan[]; posts: number; close(): Promise<void> }> {
  const state = { spans: [] as ExportedSpan[], posts: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.posts++;
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (req.url?.startsWith('/v1/traces')) state.spans.push(...fromOtlp(JSON.parse(body)));
        else if (req.url?.includes('/envelope')) state.spans.push(...fromEnvelope(body));
      } catch {
        // a body the tests do not look at (sessions, client reports)
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get spans() {
      return state.spans;
    },
    get posts() {
      return state.posts;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

interface OtlpAttr {
  key: string;
  value: Record<string, unknown>;
}

function fromOtlp(body: { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> }): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  for (const rs of body.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? []) {
        const attrs = (span.attributes as OtlpAttr[] | undefined) ?? [];
        out.push({
          name: String(span.name),
          traceId: String(span.traceId),
          spanId: String(span.spanId),
          parentSpanId: String(span.parentSpanId ?? ''),
          text: JSON.stringify([span.name, attrs, span.events]),
          client: span.kind === 3, // OTLP SPAN_KIND_CLIENT
        });
      }
  return out;
}

function fromEnvelope(body: string): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  const lines = body.split('\n');
  for (let i = 1; i + 1 < lines.length; i += 2) {
    const header = JSON.parse(lines[i]!) as { type?: string };
    if (header.type !== 'transaction') continue;
    const event = JSON.parse(lines[i + 1]!) as { contexts?: { trace?: Record<string, unknown> }; spans?: Array<Record<string, unknown>>; transaction?: string };
    const root = event.contexts?.trace ?? {};
    out.push({
      name: String(event.transaction),
      traceId: String(root.trace_id),
      spanId: String(root.span_id),
      parentSpanId: String(root.parent_span_id ?? ''),
      text: JSON.stringify(root),
      client: root.op === 'http.client',
    });
    for (const span of event.spans ?? []) {
      out.push({
        name: String(span.description),
        traceId: String(span.trace_id),
        spanId: String(span.span_id),
        parentSpanId: String(span.parent_span_id ?? ''),
        text: JSON.stringify(span),
        client: span.op === 'http.client',
      });
    }
  }
  return out;
}

/** The server app every setup runs: one incoming request makes an http.get and a fetch POST with a body. */
export const SERVER_APP = `
if (process.env.SETUP_IN_APP) require('./' + process.env.SETUP_IN_APP);
const http = require('node:http');
const UP = process.env.UP;
const server = http.createServer(async (req, res) => {
  if (req.url === '/done') {
    await globalThis.__flushTracing?.();
    res.on('finish', () => process.exit(0));
    res.end('bye');
    return;
  }
  await new Promise((ok, ko) => http.get(UP + '/json', (r) => { r.resume(); r.on('end', ok); }).on('error', ko));
  const text = await fetch(UP + '/echo', { method: 'POST', body: 'SECRET-BODY-123', headers: { 'content-type': 'text/plain', 'x-secret': 'SECRET-HEADER-456' } }).then((r) => r.text());
  res.end(text);
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

/** A hand-made setup: NodeTracerProvider, a batch processor, OTLP to the receiver, http + undici instrumentations. */
export const HANDMADE = `
const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.RECEIVER + '/v1/traces' }))] });
provider.register();
registerInstrumentations({ instrumentations: [new HttpInstrumentation({ ignoreOutgoingRequestHook: (o) => String(o.port) === process.env.RECEIVER_PORT }), new UndiciInstrumentation()] });
globalThis.__flushTracing = () => provider.forceFlush();
`;

/** The same provider without any instrumentation: the app sends no traceparent on its own. */
export const HANDMADE_BARE = `
const { NodeTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-node');
const { trace } = require('@opentelemetry/api');
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const { context } = require('@opentelemetry/api');
console.log('registered ' + (trace.getTracerProvider().getDelegate() === provider));
globalThis.__flushTracing = async () => console.log('exported ' + exporter.getFinishedSpans().length + ' context ' + context._getContextManager().constructor.name);
`;

/** @opentelemetry/sdk-node with explicit http + undici instrumentations and OTLP to the receiver. */
export const SDK_NODE = `
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
const sdk = new NodeSDK({
  serviceName: 'join-test',
  traceExporter: new OTLPTraceExporter({ url: process.env.RECEIVER + '/v1/traces' }),
  instrumentations: [new HttpInstrumentation({ ignoreOutgoingRequestHook: (o) => String(o.port) === process.env.RECEIVER_PORT }), new UndiciInstrumentation()],
});
sdk.start();
globalThis.__flushTracing = () => sdk.shutdown();
`;

/**
 * @sentry/node with tracing, sending envelopes to the receiver. SENTRY_OTEL_SDK=1 makes Sentry build an SDK
 * BasicTracerProvider (joinable); by default it builds its own minimal provider, which has no processors.
 */
export const SENTRY = `
const Sentry = require('@sentry/node');
Sentry.init({ dsn: 'http://public@127.0.0.1:' + process.env.RECEIVER_PORT + '/1', tracesSampleRate: 1, openTelemetryBasicTracerProvider: process.env.SENTRY_OTEL_SDK === '1' });
globalThis.__flushTracing = async () => {
  await Sentry.flush(5000);
  console.log('context ' + require('@opentelemetry/api').context._getContextManager().constructor.name);
};
`;
