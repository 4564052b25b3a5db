// OpenTelemetry as a tracing user runs it: the http and undici instrumentations with a batch processor and
// the OTLP/HTTP protobuf exporter, sending to BENCH_OTLP_URL (a local sink in bench/peers.mjs).
// Used as a variant of bench/peers.mjs: `node --require bench/otel-otlp-preload.cjs app.cjs`.
'use strict';
const { context, propagation, trace } = require('@opentelemetry/api');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');

const exporter = new OTLPTraceExporter({ url: process.env.BENCH_OTLP_URL });
const counting = {
  export(spans, done) {
    globalThis.__benchSpans = (globalThis.__benchSpans ?? 0) + spans.length;
    exporter.export(spans, done);
  },
  shutdown: () => exporter.shutdown(),
  forceFlush: () => exporter.forceFlush(),
};
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(counting)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);
globalThis.__benchFlush = () => provider.forceFlush();
registerInstrumentations({ tracerProvider: provider, instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()] });
require('node:http');
require('node:https');
