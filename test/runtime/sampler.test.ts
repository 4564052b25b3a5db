import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { Sampler } from '../../src/runtime/Sampler';

const traceIds = (n: number) => Array.from({ length: n }, () => randomBytes(16).toString('hex'));

test('rate 1 and no ceiling keep everything and are not "in effect"', () => {
  const sampler = new Sampler({ rate: 1, maxPerSecond: null });
  assert.equal(sampler.active, false);
  assert.ok(traceIds(1000).every((id) => sampler.decide(id)));
  assert.equal(sampler.takeSkipped(), 0);
});

test('rate 0 keeps nothing and counts every unit', () => {
  const sampler = new Sampler({ rate: 0, maxPerSecond: null });
  assert.ok(traceIds(1000).every((id) => !sampler.decide(id)));
  assert.equal(sampler.takeSkipped(), 1000);
  assert.equal(sampler.takeSkipped(), 0, 'the count restarts once taken');
  assert.equal(sampler.skippedTotal, 1000);
});

test('rate 0.1 keeps about a tenth, decided by the trace id alone', () => {
  const ids = traceIds(20_000);
  const a = new Sampler({ rate: 0.1, maxPerSecond: null });
  const b = new Sampler({ rate: 0.1, maxPerSecond: null });
  const kept = ids.filter((id) => a.decide(id));
  assert.ok(kept.length > 1600 && kept.length < 2400, `kept ${kept.length} of 20000`);
  // A second process (another service of the same traces) decides alike, and so does an OTel SDK sampling at that ratio.
  assert.deepEqual(
    ids.filter((id) => b.decide(id)),
    kept,
  );
  const otel = new TraceIdRatioBasedSampler(0.1);
  assert.deepEqual(
    ids.filter((id) => otel.shouldSample(ROOT_CONTEXT, id).decision === SamplingDecision.RECORD_AND_SAMPLED),
    kept,
  );
});

test('max_per_second holds a ceiling per one-second window and counts what it skips', () => {
  let clock = 10_000;
  const sampler = new Sampler({ rate: 1, maxPerSecond: 5 }, () => clock);
  const first = traceIds(12).map((id) => sampler.decide(id));
  assert.equal(first.filter(Boolean).length, 5);
  assert.equal(sampler.takeSkipped(), 7);
  clock += 1000;
  assert.equal(traceIds(3).filter((id) => sampler.decide(id)).length, 3, 'a new second opens a new window');
});
