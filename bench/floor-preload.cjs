// The floor of keeping bodies (issue 28): plain OTel (bench/lib/plain-otel.cjs, as the `otel` variant) plus the least a
// tool that keeps every outgoing call of each request with its bodies must do, written plainly, with no Probe code.
// On the app's thread: the taps of bench/lib/floor-taps.cjs (timestamps, header lists, one copy of the body bytes,
// with BENCH_FLOOR_STACK the caller's frames), the calls grouped by the request that made them (the OTel trace the
// server span started: no AsyncLocalStorage of its own, as Probe's scope.ts explains), and at the end of each request
// its record handed to ONE worker thread in batches (20 ms, 64 records or 8 MB), the body buffers transferred. On that
// thread (bench/floor-thread.cjs): decode, one masking pass, one JSON serialisation, one file per request.
// Environment: BENCH_FLOOR_RENAME=1 (write a temp file, then rename), BENCH_FLOOR_STACK=1, BENCH_FLOOR_SAMPLE=0.1
// (keep 1 request in 10, decided from the trace id; the others record nothing). Files go to PROBE_ROOT/floor-captures.
// Used as variants of bench/peers.mjs: `node --require bench/floor-preload.cjs app.cjs`.
'use strict';
const path = require('node:path');
const os = require('node:os');
const { Worker } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { startPlainOtel } = require('./lib/plain-otel.cjs');
const { tapCalls } = require('./lib/floor-taps.cjs');
const { trace } = require('@opentelemetry/api');

const SERVER = 1; // SpanKind.SERVER
const BATCH_RECORDS = 64;
const BATCH_BYTES = 8 * 1024 * 1024;
const BATCH_MS = 20;
// Smaller bodies are cloned with the message (a copy of tens of bytes costs less than detaching a buffer).
const TRANSFER_MIN = 1024;

const rate = Number(process.env.BENCH_FLOOR_SAMPLE ?? 1);
const dir = path.join(process.env.PROBE_ROOT ?? os.tmpdir(), 'floor-captures');
// What the thread did, for the benchmark's proof: records done, files written, bytes written, files removed, faults.
const stats = new Float64Array(new SharedArrayBuffer(5 * 8));
// execArgv empty: a worker inherits the process's --require, and this preload would start a thread from its thread.
const worker = new Worker(path.join(__dirname, 'floor-thread.cjs'), {
  execArgv: [],
  workerData: { dir, rename: process.env.BENCH_FLOOR_RENAME === '1', stats },
});
worker.unref();

/** Records of the requests being served, by trace id (each incoming request starts its own trace here: no propagator). */
const records = new Map();
let sequence = 0;
let posted = 0;
let batch = [];
let transfer = [];
let batchBytes = 0;
let timer = null;

// A trace id is random: its last 32 bits decide, as OTel's TraceIdRatioBased sampler does.
const sampled = (traceId) => rate >= 1 || parseInt(traceId.slice(-8), 16) / 0x100000000 < rate;

const floorProcessor = {
  onStart(span) {
    if (span.kind !== SERVER) return;
    const traceId = span.spanContext().traceId;
    if (!records.has(traceId) && sampled(traceId)) records.set(traceId, { id: ++sequence, name: '', start: performance.now(), end: 0, calls: [] });
  },
  onEnd(span) {
    if (span.kind !== SERVER) return;
    const traceId = span.spanContext().traceId;
    const record = records.get(traceId);
    if (!record) return;
    records.delete(traceId);
    record.name = span.name;
    record.end = performance.now();
    hand(record);
  },
  forceFlush: async () => {},
  shutdown: async () => {},
};

/** The record of the request being served now, or null (outside a request, or not sampled). */
function recordOf() {
  const span = trace.getActiveSpan();
  return span ? (records.get(span.spanContext().traceId) ?? null) : null;
}

function bodyMessage(body) {
  if (!body) return null;
  const message = body.toMessage();
  if (message.bytes && message.bytes.buffer.byteLength >= TRANSFER_MIN) transfer.push(message.bytes.buffer);
  batchBytes += message.bytes?.length ?? 0;
  return message;
}

/**
 * Queues a finished request's record for the thread as plain data, bodies as views of their own buffers. The message is
 * a copy of each call's fields: a call still running (its request ended first) goes on changing only the tap's object.
 */
function hand(record) {
  const calls = new Array(record.calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call = record.calls[i];
    calls[i] = {
      method: call.method,
      url: call.url,
      caller: call.caller,
      start: call.start,
      headersAt: call.headersAt,
      end: call.end,
      status: call.status,
      error: call.error,
      requestHeaders: call.requestHeaders,
      responseHeaders: call.responseHeaders,
      request: bodyMessage(call.request),
      response: bodyMessage(call.response),
    };
  }
  batch.push({ id: record.id, name: record.name, start: record.start, end: record.end, calls });
  if (batch.length >= BATCH_RECORDS || batchBytes >= BATCH_BYTES) send();
  else timer ??= setTimeout(send, BATCH_MS).unref();
}

function send() {
  if (timer) clearTimeout(timer);
  timer = null;
  if (!batch.length) return;
  posted += batch.length;
  worker.postMessage(batch, transfer);
  batch = [];
  transfer = [];
  batchBytes = 0;
}

const { requestHook } = tapCalls(recordOf, { stack: process.env.BENCH_FLOOR_STACK === '1' });
startPlainOtel({ extraProcessors: [floorProcessor], httpConfig: { requestHook } });

// The benchmark's proof (bench/peers-app.cjs answers it over IPC): after a flush, what the thread wrote.
const flushOtel = globalThis.__benchFlush;
globalThis.__benchFlush = async () => {
  await flushOtel();
  send();
  for (let waited = 0; stats[0] < posted && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
};
globalThis.__benchProof = () => ({ requests: stats[0], files: stats[1], bytes: stats[2], removed: stats[3], faults: stats[4], dir });
