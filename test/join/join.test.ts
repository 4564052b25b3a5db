import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { Capture, HttpRow } from '../../src/capture/types';
import { TestApp, collect, eventually, waitForLine, type RunResult } from '../helpers/app';
import { startUpstream } from '../helpers/upstream';
import { HANDMADE, HANDMADE_BARE, SDK_NODE, SENTRY, SERVER_APP, startReceiver, type ExportedSpan } from './fixtures';

const CONFIG = `module.exports = { lenses: { HttpClientLens: { bodies: true } } };`;

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type When = 'none' | 'in-app' | 'before-preload' | 'probe-only';

interface Outcome {
  run: RunResult;
  /** How many `traceparent` header lines each upstream call carried, in call order. */
  traceparents: number[];
  /** `sentry-trace` header lines per upstream call. */
  sentryTraces: number[];
  exported: ExportedSpan[];
  captures: Capture[];
}

/**
 * Runs the server app once with a setup file: `none` = the setup without Probe (the baseline), `in-app` =
 * Probe preloaded and the app loads its setup itself, `before-preload` = the setup's own `--require` comes
 * before Probe's, `probe-only` = Probe without any setup.
 */
async function runServer(up: Upstream, setup: string | null, when: When, extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const receiver: Receiver = await startReceiver();
  const app = new TestApp({ 'server.js': SERVER_APP, 'setup.js': setup ?? '', 'probe.config.js': CONFIG });
  const from = up.received.length;
  const env: Record<string, string | undefined> = { ...extraEnv, UP: up.url, RECEIVER: receiver.url, RECEIVER_PORT: String(receiver.port) };
  if (when === 'in-app') env.SETUP_IN_APP = 'setup.js';
  if (when === 'before-preload') env.NODE_OPTIONS = '--require ./setup.js --require probe/register';
  if (when === 'none') env.SETUP_IN_APP = 'setup.js';
  let child: ChildProcess | undefined;
  try {
    child = app.spawn('server.js', { preload: when === 'none' ? 'none' : 'require', env });
    const done = collect(child);
    const [, port] = await waitForLine(child, /listening (\d+)/);
    const base = `http://127.0.0.1:${port}`;
    assert.equal(await fetch(`${base}/x`).then((r) => r.text()), 'SECRET-BODY-123', 'the app answers as it does alone');
    await fetch(`${base}/done`).then((r) => r.text());
    const run = await done;
    const calls = up.received.slice(from);
    const count = (name: string) => calls.map((c) => c.rawHeaders.filter((_, i) => i % 2 === 0 && c.rawHeaders[i]!.toLowerCase() === name).length);
    const captures =
      when === 'none'
        ? []
        : await eventually(() => (app.captures().some((c) => c.sections.http?.some((r) => r.url.includes('/echo'))) ? app.captures() : undefined));
    return { run, traceparents: count('traceparent'), sentryTraces: count('sentry-trace'), exported: [...receiver.spans], captures };
  } finally {
    child?.kill();
    await receiver.close();
  }
}

function requestCapture(outcome: Outcome): Capture {
  const capture = outcome.captures.find((c) => c.type === 'request' && c.name === 'GET /x');
  assert.ok(capture, `a request capture for GET /x: ${outcome.captures.map((c) => `${c.type} ${c.name}`).join(', ')}\n${outcome.run.stderr}`);
  return capture;
}

/** Probe's rows: both calls, with status, timing and (this config keeps them) bodies and headers. */
function assertRows(outcome: Outcome): void {
  const rows = requestCapture(outcome).sections.http as HttpRow[];
  assert.deepEqual(
    rows.map((r) => `${r.method} ${new URL(r.url).pathname} ${r.status}`),
    ['GET /json 200', 'POST /echo 200'],
  );
  const post = rows[1]!;
  assert.equal(post.request_body, 'SECRET-BODY-123');
  assert.equal(post.response_body, 'SECRET-BODY-123');
  assert.equal(post.request_headers['x-secret'], '********', 'kept on the row, masked: its name ends with a secret word');
  for (const row of rows) assert.ok(typeof row.duration === 'number' && row.duration >= 0);
}

function assertNothingLeaked(exported: ExportedSpan[]): void {
  for (const span of exported) {
    assert.doesNotMatch(span.text, /SECRET-BODY-123|SECRET-HEADER-456/, `Probe's bodies and headers stay off exported span ${span.name}`);
  }
}

/** Exported spans, as a multiset of names and kinds (ids differ from run to run). */
function shape(spans: ExportedSpan[]): string[] {
  return spans.map((s) => `${s.client ? 'client' : 'other'} ${s.name}`).sort();
}

function assertEachSpanOnce(spans: ExportedSpan[]): void {
  const ids = spans.map((s) => s.spanId);
  assert.equal(new Set(ids).size, ids.length, 'no span is exported twice');
}

let up: Upstream;
before(async () => {
  up = await startUpstream();
});
after(() => up.close());

describe('without an app setup', () => {
  it('adds no traceparent and records the calls', async () => {
    const outcome = await runServer(up, null, 'probe-only');
    assert.deepEqual(outcome.traceparents, [0, 0]);
    assertRows(outcome);
  });
});

for (const [label, setup] of [
  ['a hand-made NodeTracerProvider', HANDMADE],
  ['@opentelemetry/sdk-node', SDK_NODE],
] as const) {
  describe(`joining ${label}`, () => {
    let baseline: Outcome;
    before(async () => {
      baseline = await runServer(up, setup, 'none');
    });

    it('the baseline (no Probe) sends one traceparent per call and exports the client spans', () => {
      assert.deepEqual(baseline.traceparents, [1, 1]);
      assert.equal(baseline.exported.filter((s) => s.client).length, 2, baseline.run.stderr);
    });

    for (const when of ['in-app', 'before-preload'] as const) {
      it(`loaded ${when === 'in-app' ? 'after' : 'before'} probe/register: same spans and headers, rows recorded`, async () => {
        const outcome = await runServer(up, setup, when);
        assert.equal(outcome.run.code, 0, outcome.run.stderr);
        assert.deepEqual(outcome.traceparents, baseline.traceparents, 'one traceparent per call, as the app alone');
        assert.deepEqual(shape(outcome.exported), shape(baseline.exported), 'the app exports what it exports alone');
        assertEachSpanOnce(outcome.exported);
        assertNothingLeaked(outcome.exported);
        assertRows(outcome);
        const capture = requestCapture(outcome);
        const server = outcome.exported.find((s) => !s.client && s.name.startsWith('GET'));
        assert.ok(server, 'the app exported its server span');
        assert.equal(capture.trace_id, server.traceId, "the capture follows the app's trace");
        const clientIds = new Set(outcome.exported.filter((s) => s.client).map((s) => s.spanId));
        assert.equal(clientIds.size, 2);
      });
    }
  });
}

describe('joining a provider without instrumentations', () => {
  it("keeps the app's registration and context manager, adds no spans and no traceparent", async () => {
    const baseline = await runServer(up, HANDMADE_BARE, 'none');
    const outcome = await runServer(up, HANDMADE_BARE, 'in-app');
    assert.match(outcome.run.stdout, /registered true/);
    assert.deepEqual(outcome.traceparents, [0, 0]);
    const exported = (r: RunResult) => r.stdout.match(/exported (\d+) context (\w+)/)?.slice(1);
    assert.deepEqual(exported(outcome.run), exported(baseline.run));
    assertRows(outcome);
  });
});

/** Each exported Sentry span's data keys (values differ from run to run): Probe writes nothing on the app's spans. */
function sentryDataKeys(spans: ExportedSpan[]): string[] {
  return spans
    .map(
      (s) =>
        `${s.client ? 'client' : 'other'} ${s.name.replace(/:\d+/, ':PORT')}: ${Object.keys((JSON.parse(s.text) as { data?: object }).data ?? {})
          .sort()
          .join(',')}`,
    )
    .sort();
}

for (const [label, env] of [
  ['with its SDK tracer provider (openTelemetryBasicTracerProvider)', { SENTRY_OTEL_SDK: '1' }],
  ['with its default minimal provider', { SENTRY_OTEL_SDK: '0' }],
] as const) {
  describe(`joining @sentry/node (tracing on) ${label}`, () => {
    let baseline: Outcome;
    before(async () => {
      baseline = await runServer(up, SENTRY, 'none', env);
    });

    it('the baseline (no Probe) exports a transaction with both http.client spans', () => {
      assert.equal(baseline.run.code, 0, baseline.run.stderr);
      assert.equal(baseline.exported.filter((s) => s.client).length, 2, baseline.run.stderr);
      assert.deepEqual(baseline.sentryTraces, [1, 1]);
    });

    for (const when of ['in-app', 'before-preload'] as const) {
      it(`initialised ${when === 'in-app' ? 'after' : 'before'} probe/register: same headers and spans, rows recorded`, async () => {
        const outcome = await runServer(up, SENTRY, when, env);
        assert.equal(outcome.run.code, 0, outcome.run.stderr);
        assert.deepEqual(outcome.traceparents, baseline.traceparents, 'traceparent exactly as Sentry alone');
        assert.deepEqual(outcome.sentryTraces, baseline.sentryTraces);
        assert.deepEqual(shape(outcome.exported), shape(baseline.exported), "Sentry's transaction keeps its http.client spans");
        assert.deepEqual(sentryDataKeys(outcome.exported), sentryDataKeys(baseline.exported), "Sentry's spans carry only what Sentry puts on them");
        assertEachSpanOnce(outcome.exported);
        assertNothingLeaked(outcome.exported);
        assert.equal(
          outcome.run.stdout.match(/context (\w+)/)?.[1],
          baseline.run.stdout.match(/context (\w+)/)?.[1],
          "Sentry's context manager is the global one",
        );
        const root = outcome.exported.find((s) => !s.client && s.name === 'GET /x');
        assert.ok(root, 'Sentry exported its transaction for GET /x');
        for (const child of outcome.exported.filter((s) => s.client))
          assert.equal(child.parentSpanId, root.spanId, 'each http.client span is a child of the transaction');
        // Whether or not Probe's processor could join Sentry's provider, the calls land in the request's capture.
        assertRows(outcome);
        assert.equal(requestCapture(outcome).trace_id, root.traceId, "the capture follows Sentry's trace");
      });
    }
  });
}

describe("job() inside an app's @sentry/node setup", () => {
  for (const [label, env] of [
    ['its SDK tracer provider', { SENTRY_OTEL_SDK: '1' }],
    ['its default minimal provider', { SENTRY_OTEL_SDK: '0' }],
  ] as const) {
    it(`with ${label}: the job's span is Sentry's transaction, every call (also under Sentry's own spans) is in the job capture`, async () => {
      const receiver = await startReceiver();
      const app = new TestApp({
        'setup.js': SENTRY,
        'probe.config.js': CONFIG,
        'run.js': `require('./setup.js');
const Sentry = require('@sentry/node');
const http = require('node:http');
const { job } = require('probe');
job('sync', async () => {
  await fetch(process.env.UP + '/json').then((r) => r.text());
  await Sentry.startSpan({ name: 'inner', op: 'task' }, async () => {
    await fetch(process.env.UP + '/text').then((r) => r.text());
    await new Promise((ok, ko) => http.get(process.env.UP + '/html', (r) => { r.resume(); r.on('end', ok); }).on('error', ko));
  });
}).then(() => globalThis.__flushTracing());`,
      });
      try {
        const run = await app.run('run.js', { env: { ...env, UP: up.url, RECEIVER: receiver.url, RECEIVER_PORT: String(receiver.port) } });
        assert.equal(run.code, 0, run.stderr);
        const job = await eventually(() => app.captures().find((c) => c.type === 'job' && c.name === 'sync'));
        assert.deepEqual(
          job.sections.http!.map((r) => new URL(r.url).pathname),
          ['/json', '/text', '/html'],
        );
        const exported = receiver.spans;
        assertEachSpanOnce(exported);
        const root = exported.find((s) => s.name === 'sync');
        assert.ok(root, "the job's span is exported by Sentry");
        assert.equal(job.trace_id, root.traceId);
        const inner = exported.find((s) => s.name === 'inner');
        assert.equal(inner?.parentSpanId, root.spanId, "Sentry's own span stays in the job's transaction");
        const parentOf = (path: string) => exported.find((s) => s.client && s.name.endsWith(path))?.parentSpanId;
        assert.deepEqual([parentOf('/json'), parentOf('/text'), parentOf('/html')], [root.spanId, inner.spanId, inner.spanId]);
      } finally {
        await receiver.close();
      }
    });
  }
});

describe('start() from code', () => {
  it("joins Sentry's minimal provider initialised first, tracers it took before included", async () => {
    const receiver = await startReceiver();
    const app = new TestApp({
      'setup.js': SENTRY,
      'probe.config.js': CONFIG,
      'run.js': `require('./setup.js');
const Sentry = require('@sentry/node');
Sentry.startSpan({ name: 'boot' }, () => {});
const { start, job } = require('probe');
const probe = start();
job('sync', async () => {
  await Sentry.startSpan({ name: 'inner', op: 'task' }, async () => { await fetch(process.env.UP + '/text').then((r) => r.text()); });
}).then(async () => { await globalThis.__flushTracing(); await probe.shutdown(); });`,
    });
    try {
      const run = await app.run('run.js', {
        preload: 'none',
        env: { SENTRY_OTEL_SDK: '0', UP: up.url, RECEIVER: receiver.url, RECEIVER_PORT: String(receiver.port) },
      });
      assert.equal(run.code, 0, run.stderr);
      const job = app.captures().find((c) => c.type === 'job');
      assert.ok(job, run.stderr);
      assert.deepEqual(
        job.sections.http!.map((r) => new URL(r.url).pathname),
        ['/text'],
        "the call under Sentry's span is in the job",
      );
      const inner = receiver.spans.find((s) => s.name === 'inner');
      assert.equal(receiver.spans.find((s) => s.client)?.parentSpanId, inner?.spanId);
      assertEachSpanOnce(receiver.spans);
    } finally {
      await receiver.close();
    }
  });

  it('joins an SDK that started first', async () => {
    const receiver = await startReceiver();
    const app = new TestApp({
      'setup.js': SDK_NODE,
      'probe.config.js': CONFIG,
      'run.js': `require('./setup.js');
const { start, job } = require('probe');
const probe = start();
job('sync', async () => {
  await fetch(process.env.UP + '/json').then((r) => r.text());
}).then(async () => {
  await globalThis.__flushTracing();
  await probe.shutdown();
});`,
    });
    try {
      const from = up.received.length;
      const run = await app.run('run.js', { preload: 'none', env: { UP: up.url, RECEIVER: receiver.url, RECEIVER_PORT: String(receiver.port) } });
      assert.equal(run.code, 0, run.stderr);
      const calls = up.received.slice(from);
      assert.deepEqual(
        calls.map((c) => c.rawHeaders.filter((h) => h.toLowerCase() === 'traceparent').length),
        [1],
      );
      const job = app.captures().find((c) => c.type === 'job');
      assert.ok(job, run.stderr);
      assert.equal(job.sections.http!.length, 1);
      const exported = receiver.spans;
      assertEachSpanOnce(exported);
      const jobSpan = exported.find((s) => s.name === 'sync');
      assert.ok(jobSpan, "the job's span goes to the app's exporter");
      assert.equal(exported.find((s) => s.client)?.parentSpanId, jobSpan.spanId, 'the call is a child of the job in the app trace');
    } finally {
      await receiver.close();
    }
  });
});
