import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { resolveConfig } from '../../src/config/resolve';
import { CaptureWriter } from '../../src/runtime/CaptureWriter';
import { Recorder, ATTR_UNIT } from '../../src/runtime/Recorder';
import { ProbeSpanProcessor } from '../../src/runtime/ProbeSpanProcessor';
import { CallRecord } from '../../src/runtime/CallRecord';
import { errorInput } from '../../src/runtime/errors';
import { createLogger } from '../../src/util/logger';
import { MemoryStore } from '../helpers/memory-store';

function setup() {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const store = new MemoryStore();
  const logger = createLogger(() => {});
  const writer = new CaptureWriter(config, store, logger);
  const recorder = new Recorder(config, writer, logger);
  const provider = new BasicTracerProvider({ spanProcessors: [new ProbeSpanProcessor(recorder, logger)] });
  return { recorder, tracer: provider.getTracer('t'), store, writer };
}

function call(url: string, status: number | null): CallRecord {
  const record = new CallRecord(0, Date.now());
  record.begin({ method: 'GET', url });
  if (status === null) record.fail(errorInput(new Error('refused')), Date.now());
  else {
    record.markHeaders(status, {});
    record.finish(Date.now());
  }
  return record;
}

test("while a test runs, what no request or job claims is the test's; tests nest; the process keeps no empty capture", async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const { recorder, tracer, store, writer } = setup();
  const outer = recorder.beginTest(['suite', 'outer']);
  const client = tracer.startSpan('GET', { kind: SpanKind.CLIENT });
  assert.equal(recorder.unitOfSpan(client.spanContext().spanId), outer, 'a root client span belongs to the running test');
  client.end();
  recorder.addCall(recorder.activeUnit(), call('http://a.test/outer', 200));
  // A server span during a test is its own request; a job() keeps its calls.
  const served = tracer.startSpan('GET /x', { kind: SpanKind.SERVER });
  assert.equal(recorder.unitOfSpan(served.spanContext().spanId).type, 'request');
  served.end();
  const job = tracer.startSpan('work', { attributes: { [ATTR_UNIT]: 'job' } });
  context.with(trace.setSpan(context.active(), job), () => recorder.addCall(recorder.activeUnit(), call('http://a.test/job', 200)));
  job.end();
  const inner = recorder.beginTest(['suite', 'outer', 'inner']);
  recorder.addCall(recorder.activeUnit(), call('http://a.test/inner', 200));
  recorder.endTest(inner, true);
  recorder.addCall(recorder.activeUnit(), call('http://a.test/outer-again', 200));
  recorder.endTest(outer, false);
  const open = recorder.beginTest(['exits inside']);
  recorder.closeAll(1, 'exit');
  await writer.flush();
  const rows = await store.index();
  const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
  assert.deepEqual(rows.map((row) => `${row.type} ${row.name}`).sort(), [
    'job work',
    'request GET /x',
    'test exits inside',
    'test suite > outer',
    'test suite > outer > inner',
  ]);
  const paths = async (name: string) => ((await store.find(byName[name]!.id))!.sections.http ?? []).map((row) => new URL(row.url).pathname);
  assert.deepEqual(await paths('suite > outer'), ['/outer', '/outer-again']);
  assert.deepEqual(await paths('suite > outer > inner'), ['/inner']);
  assert.deepEqual(await paths('work'), ['/job']);
  assert.equal(byName['suite > outer']!.status, 'failed');
  assert.equal(byName['suite > outer']!.has_errors, true, 'a failed test has errors though none of its calls failed');
  assert.equal(byName['suite > outer > inner']!.status, 'passed');
  assert.equal(byName['suite > outer > inner']!.has_errors, false);
  assert.equal(byName['exits inside']!.status, 'failed', 'a test still running at exit did not pass');
  assert.equal(open.closed, true);
  context.disable();
});

test('a passed test with a failed call has errors; calls after the last test go to the process capture again', async () => {
  const { recorder, store, writer } = setup();
  const unit = recorder.beginTest(['calls a dead host']);
  recorder.addCall(recorder.activeUnit(), call('http://dead.test/', null));
  recorder.endTest(unit, true);
  recorder.addCall(recorder.activeUnit(), call('http://a.test/teardown', 200));
  assert.equal(recorder.activeUnit(), recorder.processUnit);
  recorder.closeAll(0, 'exit');
  await writer.flush();
  const rows = await store.index();
  assert.deepEqual(rows.map((row) => `${row.type} ${row.status} ${row.has_errors} ${row.counts.http}`).sort(), ['command 0 false 1', 'test passed true 1']);
});
