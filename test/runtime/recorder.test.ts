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
import { CallRecord } from '../../src/runtime/CallRecord';
import { errorInput } from '../../src/runtime/errors';
import { ATTR_UNIT } from '../../src/runtime/Recorder';
import { FetchCall } from '../../src/lens/FetchCall';

function setup(file: Record<string, unknown> = {}) {
  const config = resolveConfig({ root: '/app', configFile: null, file, env: {} });
  const store = new MemoryStore();
  const logger = createLogger(() => {});
  const writer = new CaptureWriter(config, store, logger);
  const recorder = new Recorder(config, writer, logger);
  const provider = new BasicTracerProvider({ spanProcessors: [new ProbeSpanProcessor(recorder, logger)] });
  return { recorder, tracer: provider.getTracer('t'), store, writer };
}

function finishedCall(i: number, Kind: typeof CallRecord = CallRecord): CallRecord {
  const call = new Kind(0, 1_000 + i);
  call.begin({
    method: 'GET',
    spanId: i.toString(16).padStart(16, '0'),
    url: i % 3 === 0 ? `https://b.test/items/${i}?token=secret` : `https://a.test/items/${i}`,
  });
  if (i % 250 === 7) call.fail(errorInput(new Error(`boom ${i}`)), 1_000 + i + 2);
  else {
    call.markHeaders(200, {});
    call.finish(1_000 + i + 2);
  }
  return call;
}

test('spans outside any unit are forgotten as they end (a server does not grow per boot/timer call)', () => {
  const { recorder, tracer } = setup();
  for (let i = 0; i < 100; i++) tracer.startSpan('GET', { kind: SpanKind.CLIENT }).end();
  assert.equal(recorder.trackedSpans, 0);
});

test('a request unit keeps its ended child spans until it closes, so late calls still find it', () => {
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

test('calls past max_rows are folded into totals as they finish: the unit holds about max_rows records, the capture counts them all', async () => {
  const { recorder, tracer, store, writer } = setup({ lenses: { HttpClientLens: { max_rows: 10 } } });
  const span = tracer.startSpan('import', { attributes: { [ATTR_UNIT]: 'job' } });
  const unit = recorder.unitOfSpan(span.spanContext().spanId);
  assert.equal(unit.type, 'job');
  let most = 0;
  // A fetch whose hop ended but whose promise has not settled: a redirect may still reuse it, so it stays.
  const hopping = finishedCall(99_999, FetchCall);
  for (let i = 0; i < 5_000; i++) {
    recorder.addCall(unit, i === 20 ? hopping : finishedCall(i));
    most = Math.max(most, unit.calls.length);
  }
  assert.ok(most <= 10 + 64, `at most max_rows + one sweep of records live, saw ${most}`);
  assert.ok(unit.calls.includes(hopping));
  span.end();
  await writer.flush();
  const [row] = await store.index();
  const capture = (await store.find(row!.id))!;
  const http = capture.sections.http!;
  assert.equal(http.length, 10);
  assert.deepEqual(
    http.map((r) => new URL(r.url).pathname),
    Array.from({ length: 10 }, (_, i) => `/items/${i}`),
  );
  assert.equal(capture.summary.dropped_rows, 4_990);
  const totals = capture.summary.totals!;
  assert.equal(totals.http_calls, 5_000);
  const failures = Array.from({ length: 5_000 }, (_, i) => i).filter((i) => i !== 20 && i % 250 === 7).length;
  assert.equal(totals.http_failed, failures);
  assert.equal((totals.http_by_host['b.test'] ?? 0) + (totals.http_by_host['a.test'] ?? 0), 5_000);
  assert.equal(totals.http_by_host['b.test'], Array.from({ length: 5_000 }, (_, i) => i).filter((i) => (i === 20 ? 99_999 : i) % 3 === 0).length);
  assert.equal(totals.http_ms, 5_000 * 2);
  assert.equal(capture.summary.errors.length, 3);
  assert.match(capture.summary.errors[0]!, /^HTTP call failed: GET https:\/\/a\.test\/items\/7 \(boom 7\)$/);
  assert.ok(capture.summary.errors.every((line) => !line.includes('secret')));
});

test("a job forgets its outgoing calls' span ids as they end, so 1,000 calls do not stay in the lookup", () => {
  const { recorder, tracer } = setup();
  const job = tracer.startSpan('import', { attributes: { [ATTR_UNIT]: 'job' } });
  const parent = trace.setSpan(context.active(), job);
  for (let i = 0; i < 1_000; i++) tracer.startSpan('GET', { kind: SpanKind.CLIENT }, parent).end();
  assert.equal(recorder.trackedSpans, 1, 'only the job span itself');
  job.end();
  assert.equal(recorder.trackedSpans, 0);
});
