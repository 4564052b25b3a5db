import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRow } from '../../src/capture/types';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/**
 * undici prints its own debug lines under NODE_DEBUG (Node's fetch and the `undici` package each decide, as they
 * load, whether to subscribe their loggers). The app's stderr is its own: the same lines with Probe as without.
 */
const APP = `
const http = require('node:http');
const crypto = require('node:crypto');
const undici = require('undici');
const U = process.env.UPSTREAM;
// A WebSocket server of the app's own: the handshake, then a close frame (1000).
const server = http.createServer();
server.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  socket.write(Buffer.from([0x88, 0x02, 0x03, 0xe8]));
  socket.on('data', () => socket.end());
  socket.on('error', () => {});
});
(async () => {
  await (await undici.fetch(U + '/text')).text();
  await (await undici.request(U + '/json')).body.text();
  await (await fetch(U + '/html')).text();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ws = new undici.WebSocket('ws://127.0.0.1:' + server.address().port + '/ws');
  await new Promise((resolve) => (ws.onclose = resolve));
  server.close();
  console.log('done');
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

/** Node's own fetch alone: the undici inside Node makes its choice with no `undici` package loaded. */
const GLOBAL_FETCH_APP = `
const U = process.env.UPSTREAM;
(async () => {
  await (await fetch(U + '/text')).text();
  await (await fetch(U + '/json', { method: 'POST', body: '{}' })).text();
  console.log('done');
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

/**
 * An ESM app with its own OpenTelemetry setup made after Probe's preload: its undici instrumentation sees every
 * request (its spans are printed), the first one too, with undici's debug lines on. Its own subscriptions may
 * silence undici's loggers (Node 22 and later's fetch checks as it loads): the lines are compared, whatever they are.
 */
const OTEL_APP = `
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
const require = createRequire(import.meta.url);
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
// V8 collects garbage whenever it likes while an app starts: here it does so right before the app subscribes, and
// the app awaits a turn of the event loop before it loads undici, so that no run depends on the machine's load.
const turn = () => new Promise((resolve) => setImmediate(resolve));
v8.setFlagsFromString('--expose-gc');
await turn();
vm.runInNewContext('gc')();
registerInstrumentations({ instrumentations: [new UndiciInstrumentation()] });
await turn();
const undici = await import('undici');
const U = process.env.UPSTREAM;
await (await fetch(U + '/text')).text();
await (await undici.request(U + '/json')).body.text();
await (await undici.fetch(U + '/html')).text();
const spans = exporter.getFinishedSpans().map((s) => s.kind + ' ' + s.name + ' ' + new URL(s.attributes['url.full']).pathname);
console.log(JSON.stringify(spans.sort()));
`;

/**
 * A CommonJS app that sets up the same instrumentation a turn of the event loop after it starts, V8 collecting
 * garbage just before: whatever channel objects were left without a subscriber by then (and are not referenced) go
 * at that point, every run, and their finalizers run after the app subscribed.
 */
const OTEL_LATER_APP = `
const v8 = require('node:v8');
const vm = require('node:vm');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
const turn = () => new Promise((resolve) => setImmediate(resolve));
v8.setFlagsFromString('--expose-gc');
(async () => {
  await turn();
  vm.runInNewContext('gc')();
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({ instrumentations: [new UndiciInstrumentation()] });
  await turn();
  const undici = require('undici');
  const U = process.env.UPSTREAM;
  await (await fetch(U + '/text')).text();
  await (await undici.request(U + '/json')).body.text();
  await (await undici.fetch(U + '/html')).text();
  const spans = exporter.getFinishedSpans().map((s) => s.kind + ' ' + s.name + ' ' + new URL(s.attributes['url.full']).pathname);
  console.log(JSON.stringify(spans.sort()));
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

/** undici's debug lines, ports, process ids and other numbers written as N. */
const debugLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => /^(FETCH|UNDICI|WEBSOCKET) \d+:/.test(line))
    .map((line) => line.replace(/\d+/g, 'N'));

describe("undici's NODE_DEBUG lines", () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  /** Runs `app` without Probe and with it under `env`: the same debug lines (at least `least`), and both runs' stdout. */
  async function sameLines(files: Record<string, string>, script: string, env: Record<string, string>, least: number) {
    const baseline = await runLensApp(up, files, script, { preload: 'none', env });
    assert.equal(baseline.result.code, 0, baseline.result.stderr);
    const expected = debugLines(baseline.result.stderr);
    assert.ok(expected.length >= least, `undici printed its lines:\n${baseline.result.stderr}`);
    const run = await runLensApp(up, files, script, { preload: 'require', env });
    assert.equal(run.result.code, 0, run.result.stderr);
    assert.deepEqual(debugLines(run.result.stderr), expected);
    return { baseline, run };
  }

  /** The rows of the app's calls to the plain upstream, by path. */
  const paths = (rows: HttpRow[]) =>
    rows
      .filter((row) => row.url.startsWith(up.plain.url))
      .map((row) => new URL(row.url).pathname)
      .sort();

  for (const flag of ['fetch', 'undici', 'websocket']) {
    it(`NODE_DEBUG=${flag}: the same lines with Probe as without, and the calls recorded`, async () => {
      const { run } = await sameLines({ 'app.js': APP }, 'app.js', { NODE_DEBUG: flag }, 5);
      assert.deepEqual(paths(run.rows), ['/html', '/json', '/text']);
      for (const row of run.rows.filter((r) => r.url.startsWith(up.plain.url))) assert.equal(row.status, 200, row.url);
    });
  }

  it("NODE_DEBUG=fetch with Node's fetch alone: the same lines, and the calls recorded", async () => {
    const { run } = await sameLines({ 'app.js': GLOBAL_FETCH_APP }, 'app.js', { NODE_DEBUG: 'fetch' }, 4);
    assert.deepEqual(paths(run.rows), ['/json', '/text']);
  });

  it("NODE_DEBUG=undici,fetch beside the app's own undici instrumentation (ESM, set up after Probe): the same lines and the same spans", async () => {
    const { baseline, run } = await sameLines({ 'app.mjs': OTEL_APP }, 'app.mjs', { NODE_DEBUG: 'undici,fetch' }, 0);
    const spans = JSON.parse(baseline.result.stdout.trim()) as string[];
    assert.equal(spans.length, 3, baseline.result.stdout);
    assert.deepEqual(JSON.parse(run.result.stdout.trim()), spans);
    assert.deepEqual(paths(run.rows), ['/html', '/json', '/text']);
  });

  it("NODE_DEBUG=undici,fetch, the app's own undici instrumentation set up a turn later, right after a garbage collection: the same lines and the same spans", async () => {
    const { baseline, run } = await sameLines({ 'app.js': OTEL_LATER_APP }, 'app.js', { NODE_DEBUG: 'undici,fetch' }, 0);
    const spans = JSON.parse(baseline.result.stdout.trim()) as string[];
    assert.equal(spans.length, 3, baseline.result.stdout);
    assert.deepEqual(JSON.parse(run.result.stdout.trim()), spans);
    assert.deepEqual(paths(run.rows), ['/html', '/json', '/text']);
  });

  it('without NODE_DEBUG: the app set up after Probe sees every request, the first one too', async () => {
    const { baseline, run } = await sameLines({ 'app.mjs': OTEL_APP }, 'app.mjs', {}, 0);
    assert.deepEqual(JSON.parse(run.result.stdout.trim()), JSON.parse(baseline.result.stdout.trim()));
    assert.deepEqual(paths(run.rows), ['/html', '/json', '/text']);
  });
});
