// Plain OpenTelemetry, as an app would set it up by hand: a tracer provider with a batch processor and an
// exporter that drops everything, plus the http and undici instrumentations Probe builds on. Shared by
// bench/otel-preload.cjs (the baseline) and bench/floor-preload.cjs, which adds one span processor of its own,
// so both run the very same OTel set-up.
'use strict';
const { context } = require('@opentelemetry/api');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
const { ExportResultCode } = require('@opentelemetry/core');

/**
 * Starts plain OTel; `extraProcessors` run after its dropping batch processor (processors are fixed at construction),
 * `httpConfig` is HttpInstrumentation's configuration (hooks).
 */
function startPlainOtel({ extraProcessors = [], httpConfig = {} } = {}) {
  // Counts what it drops, so a benchmark can show the baseline really instrumented the calls.
  const dropping = {
    export(spans, done) {
      globalThis.__benchSpans = (globalThis.__benchSpans ?? 0) + spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => {},
    forceFlush: async () => {},
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping), ...extraProcessors] });
  globalThis.__benchFlush = () => provider.forceFlush();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new HttpInstrumentation(httpConfig), new UndiciInstrumentation()],
  });
  require('node:http');
  require('node:https');
  return provider;
}

module.exports = { startPlainOtel };
