import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import type { Capture, HttpRow } from '../../src/capture/types';
import { TestApp, eventually, waitForLine, collect as collectChild } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { startCollector } from './collectCli';

const APP = readFileSync(path.join(__dirname, 'fixtures', 'otel-app.js'), 'utf8');

let upstream: Upstream;
let closedPort: number;
before(async () => {
  upstream = await startUpstream();
  // A port that was free a moment ago: connecting to it is refused. (Port 9 would be refused by fetch itself,
  // before any span starts: it is on the fetch standard's bad-port list.)
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
after(async () => {
  await upstream.close();
});

function rowTo(capture: Capture, suffix: string): HttpRow {
  const row = capture.sections.http?.find((r) => r.url.endsWith(suffix));
  assert.ok(row, `no row ending with ${suffix} in ${JSON.stringify(capture.sections.http?.map((r) => r.url))}`);
  return row;
}

/** Runs the instrumented app against a running `probe collect` and returns the captures it stored. */
async function exportThrough(exporter: 'json' | 'proto', gzip: boolean, token?: string): Promise<{ captures: Capture[]; pid: number }> {
  const app = new TestApp({ 'app.js': APP }, `otel-${exporter}`);
  const collector = await startCollector(app, token ? ['--token', token] : []);
  try {
    const child = app.spawn('app.js', {
      preload: 'none',
      env: {
        EXPORTER: exporter,
        GZIP: gzip ? '1' : '',
        COLLECTOR: collector.url,
        UPSTREAM: upstream.url,
        DOWN_URL: `http://127.0.0.1:${closedPort}/down`,
        // The setting `probe collect` prints when it requires a token, read by the exporter itself.
        OTEL_EXPORTER_OTLP_HEADERS: token ? `Authorization=Bearer%20${token}` : undefined,
      },
    });
    const exited = collectChild(child);
    const [, port] = await waitForLine(child, /listening (\d+)/);
    const response = await fetch(`http://127.0.0.1:${port}/orders/42?x=1`, { headers: { 'user-agent': 'probe-test' } });
    assert.equal(response.status, 201);
    await response.text();
    const result = await exited;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /flushed/);
    // Request and job are written once their trace settles; the command once the process falls quiet.
    const captures = await eventually(() => {
      const all = app.captures();
      return all.length >= 3 ? all : undefined;
    });
    return { captures, pid: child.pid! };
  } finally {
    const stopped = await collector.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.doesNotMatch(stopped.stderr, /could not/, stopped.stderr);
  }
}

function checkCaptures(captures: Capture[], pid: number): void {
  assert.equal(captures.length, 3, JSON.stringify(captures.map((c) => [c.type, c.name])));
  const request = captures.find((c) => c.type === 'request');
  const job = captures.find((c) => c.type === 'job');
  const command = captures.find((c) => c.type === 'command');
  assert.ok(request && job && command);

  for (const capture of captures) {
    assert.equal(capture.schema_version, 1);
    assert.match(capture.id, /^[0-9A-Za-z_-]{8,64}$/);
    assert.match(capture.trace_id, /^[0-9a-f]{32}$/);
    assert.equal(capture.linked_via, 'otlp');
    assert.equal(capture.meta.service, 'shop-api');
    assert.equal(capture.meta.hostname, 'web-1');
    assert.equal(capture.meta.pid, pid);
    assert.equal(capture.meta.node, process.versions.node);
    assert.ok(capture.ended_at >= capture.started_at);
  }

  // The incoming request: name without the query, status, request section.
  assert.equal(request.name, 'GET /orders/42');
  assert.equal(request.status, '201');
  assert.equal(request.ended_by, 'response');
  const section = request.sections.request!;
  assert.equal(section.method, 'GET');
  assert.equal(section.path, '/orders/42');
  assert.match(section.url, /^http:\/\/127\.0\.0\.1:\d+\/orders\/42\?x=1$/);
  assert.equal(section.status, '201');
  assert.equal(section.remote_address, '127.0.0.1');

  const rows = request.sections.http!;
  assert.equal(rows.length, 3, JSON.stringify(rows.map((r) => r.url)));
  // fetch → undici instrumentation (stable semconv).
  const json = rowTo(request, '/json?page=2');
  assert.equal(json.method, 'GET');
  assert.equal(json.url, `${upstream.url}/json?page=2`);
  assert.equal(json.host, `127.0.0.1:${upstream.port}`);
  assert.equal(json.endpoint, `GET ${upstream.url}/json`);
  assert.equal(json.status, 200);
  assert.equal(json.failed, false);
  assert.equal(json.exception, null);
  assert.equal(json.fake, false);
  assert.equal(json.pool, null);
  assert.equal(json.request_headers['x-trace-me'], 'yes');
  assert.equal(json.response_headers['content-type'], 'application/json');
  assert.ok(json.timing, 'a real call has timing');
  assert.equal(json.timing.remote, `127.0.0.1:${upstream.port}`);
  assert.equal(json.timing.protocol, 'HTTP/1.1');
  assert.equal(typeof json.duration, 'number');
  assert.ok(json.time >= 0);
  // node:http → instrumentation-http (old semconv by default).
  const text = rowTo(request, '/text');
  assert.equal(text.method, 'GET');
  assert.equal(text.url, `${upstream.url}/text`);
  assert.equal(text.status, 200);
  assert.equal(text.failed, false);
  assert.equal(text.request_headers['x-trace-me'], 'yes');
  assert.equal(text.response_headers['content-type'], 'text/plain');
  // A refused connection: no status, no timing, an exception with its code.
  const down = rowTo(request, '/down');
  assert.equal(down.status, null);
  assert.equal(down.failed, true);
  assert.equal(down.timing, null);
  assert.ok(down.exception);
  assert.equal(down.exception.code, 'ECONNREFUSED');
  assert.equal(down.exception.class, 'Error');
  assert.match(down.exception.message, /^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  assert.equal(down.response_bytes, null);
  assert.deepEqual(request.summary.totals?.http_calls, 3);
  assert.deepEqual(request.summary.totals?.http_failed, 1);
  assert.equal(request.summary.errors.length, 1);
  assert.match(request.summary.errors[0]!, /^HTTP call failed: GET http:\/\/127\.0\.0\.1:\d+\/down /);
  // The calls hang under the server span on the timeline.
  const httpSpans = request.spans.filter((s) => s.kind === 'http');
  assert.equal(httpSpans.length, 3);

  // The CONSUMER span: a job with its failed (503) call.
  assert.equal(job.name, 'orders.sync process');
  assert.equal(job.status, 'done');
  const jobRow = rowTo(job, '/status/503');
  assert.equal(jobRow.method, 'POST');
  assert.equal(jobRow.status, 503);
  assert.equal(jobRow.failed, true);
  assert.equal(job.summary.totals?.http_failed, 1);

  // The boot call outside any request: the process's command capture, named after the service.
  assert.equal(command.name, 'shop-api');
  assert.equal(command.sections.http?.length, 1);
  const boot = rowTo(command, '/json?boot=1');
  assert.equal(boot.status, 200);
  assert.notEqual(command.trace_id, request.trace_id);
}

for (const exporter of ['json', 'proto'] as const) {
  test(`spans from exporter-trace-otlp-${exporter === 'json' ? 'http' : 'proto'} become captures, field by field`, async () => {
    const { captures, pid } = await exportThrough(exporter, false);
    checkCaptures(captures, pid);
  });
}

test('a collector that requires a token takes it from OTEL_EXPORTER_OTLP_HEADERS, as the exporter reads it', async () => {
  const { captures, pid } = await exportThrough('json', false, 'exporter-token-42');
  checkCaptures(captures, pid);
});

test('gzip-compressed protobuf exports are decoded too', async () => {
  const { captures, pid } = await exportThrough('proto', true);
  checkCaptures(captures, pid);
});
