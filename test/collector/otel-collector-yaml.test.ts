import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// The Collector binary cannot run here; this checks the file parses as YAML and that the pipeline is wired
// the way the Collector validates it at start (every referenced component defined, every one used).
// The exporter settings it uses for Probe (OTLP/HTTP, protobuf, gzip) are exercised for real by
// otlp-exporters.test.ts with the OTel SDK's protobuf exporter and gzip.
const file = path.join(__dirname, '..', '..', 'otel-collector.yaml');

interface CollectorConfig {
  receivers: Record<string, { protocols?: Record<string, { endpoint: string }> }>;
  processors: Record<string, unknown>;
  exporters: Record<string, { endpoint: string; compression?: string; encoding?: string; headers?: Record<string, string> }>;
  service: { pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }> };
}

test('otel-collector.yaml is a well-formed Collector pipeline fanning traces out to Probe and a backend', () => {
  const config = parse(readFileSync(file, 'utf8')) as CollectorConfig;
  assert.deepEqual(Object.keys(config.receivers.otlp!.protocols!).sort(), ['grpc', 'http']);
  assert.match(config.receivers.otlp!.protocols!.grpc!.endpoint, /:4317$/);
  assert.match(config.receivers.otlp!.protocols!.http!.endpoint, /:4318$/);
  assert.ok('batch' in config.processors);

  const traces = config.service.pipelines.traces!;
  for (const name of traces.receivers) assert.ok(name in config.receivers, name);
  for (const name of traces.processors) assert.ok(name in config.processors, name);
  for (const name of traces.exporters) assert.ok(name in config.exporters, name);
  assert.deepEqual(Object.keys(config.exporters).sort(), [...traces.exporters].sort(), 'every exporter is used');
  assert.ok(traces.processors.includes('batch'));
  assert.equal(traces.processors.at(-1), 'batch', 'batch runs last, after memory_limiter');

  const probe = config.exporters['otlphttp/probe']!;
  // `probe collect` serves /v1/traces under this base; not on 4318, where the Collector itself listens.
  assert.match(probe.endpoint, /^\$\{env:PROBE_COLLECT_ENDPOINT:-http:\/\/[\w.-]+:4319\}$/);
  assert.equal(probe.compression, 'gzip');
  assert.equal(probe.encoding, 'proto');
  // `probe collect --host 0.0.0.0` requires its token as a Bearer header.
  assert.equal(probe.headers?.Authorization, 'Bearer ${env:PROBE_TOKEN}');
  assert.ok(traces.exporters.some((name) => name.endsWith('/backend')));
});
