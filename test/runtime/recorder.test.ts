import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { resolveConfig } from '../../src/config/resolve';
import { CaptureWriter } from '../../src/runtime/CaptureWriter';
import { Recorder } from '../../src/runtime/Recorder';
import { ProbeSpanProcessor } from '../../src/runtime/ProbeSpanProcessor';
import { createLogger } from '../../src/util/logger';
import { MemoryStore } from '../helpers/memory-store';

function setup() {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const store = new MemoryStore();
  const logger = createLogger(() => {});
  const recorder = new Recorder(config, new CaptureWriter(config, store, logger), logger);
  const provider = new BasicTracerProvider({ spanProcessors: [new ProbeSpanProcessor(recorder, logger)] });
  return { recorder, tracer: provider.getTracer('t') };
}

test('spans outside any unit are forgotten as they end (a server does not grow per boot/timer call)', () => {
  const { recorder, tracer } = setup();
  for (let i = 0; i < 100; i++) tracer.startSpan('GET', { kind: SpanKind.CLIENT }).end();
  assert.equal(recorder.trackedSpans, 0);
});

test("a request unit keeps its ended child spans until it closes, so late calls still find it", () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const { recorder, tracer } = setup();
  const root = tracer.startSpan('GET /x', { kind: SpanKind.SERVER });
  const middleware = tracer.startSpan('middleware', {}, trace.setSpan(context.active(), root));
  middleware.end();
  const late = tracer.startSpan('GET upstream', { kind: SpanKind.CLIENT }, trace.setSpan(context.active(), middleware));
  assert.equal(recorder.unitOfSpan(late.spanContext().spanId).type, 'request');
  late.end();
  root.end();
  assert.equal(recorder.trackedSpans, 0);
  context.disable();
});
