import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import type { HttpRow } from '../../src/capture/types';

/**
 * An app's server looks at its own responses: the listeners each has (`res.eventNames()`, `res.listenerCount()`) as
 * its handler starts and as the response closes, and every event its own `res.emit` wrapper sees. A response that
 * is answered, one that fails (a write after its end) and one whose client goes away before an answer. The app's
 * view is the same with Probe as without, and each request is still a capture of its own.
 */
const APP = `
if (process.env.APP_TRACING) require('./tracing.js');
const http = require('node:http');
const { errorMonitor } = require('node:events');
const U = process.env.UPSTREAM;
const name = (event) => (typeof event === 'symbol' ? event.toString() : event);
const seen = {};
const closed = {};
const closing = (path) => new Promise((resolve) => (closed[path] = resolve));
let started = () => {};
const server = http.createServer(async (req, res) => {
  const path = req.url;
  const log = (seen[path] = { atHandler: res.eventNames().map(name), close: res.listenerCount('close'), monitors: res.listenerCount(errorMonitor), events: [] });
  const emit = res.emit;
  res.emit = function (event) {
    log.events.push(name(event));
    return emit.apply(this, arguments);
  };
  res.on('close', () => {
    log.atClose = res.eventNames().map(name);
    closed[path]();
  });
  if (path === '/ok') {
    await (await fetch(U + '/json')).text();
    res.end('ok');
  } else if (path === '/fail') {
    res.on('error', (error) => (log.error = error.code));
    res.end('x');
    res.write('y');
  } else started();
});
server.listen(0, '127.0.0.1', async () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  const waits = ['/ok', '/fail', '/abort'].map(closing);
  await (await fetch(base + '/ok')).text();
  await (await fetch(base + '/fail')).text();
  const request = http.get(base + '/abort');
  request.on('error', () => {});
  started = () => request.destroy();
  await Promise.all(waits);
  console.log(JSON.stringify(seen));
  server.close();
  server.closeAllConnections();
});
`;

/** The app's own OpenTelemetry setup, made in its first line (after Probe's preload): its listeners are its own. */
const TRACING = `
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }).register();
registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
`;

describe("an incoming request's response: the app sees only its own listeners", () => {
  let up: Upstream;
  before(async () => (up = await startUpstream()));
  after(() => up.close());

  for (const tracing of [false, true]) {
    const setup = tracing ? ", beside the app's own OpenTelemetry setup" : '';
    it(`the same listeners and events with Probe as without; answered, failed and abandoned responses still captured${setup}`, async () => {
      const env: Record<string, string> = { UPSTREAM: up.url, ...(tracing ? { APP_TRACING: '1' } : {}) };
      const baseline = await new TestApp({ 'server.js': APP, 'tracing.js': TRACING }).run('server.js', { preload: 'none', env });
      assert.equal(baseline.code, 0, baseline.stderr);
      const expected = JSON.parse(baseline.stdout.trim()) as Record<string, { events: string[]; error?: string }>;
      assert.equal(expected['/fail'].error, 'ERR_STREAM_WRITE_AFTER_END', baseline.stdout);
      assert.ok(expected['/ok'].events.includes('finish') && expected['/abort'].events.includes('close'), baseline.stdout);

      const app = new TestApp({ 'server.js': APP, 'tracing.js': TRACING });
      const run = await app.run('server.js', { preload: 'require', env });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout.trim()), expected);

      const requests = app.captures().filter((c) => c.type === 'request');
      assert.deepEqual(requests.map((c) => c.name).sort(), ['GET /abort', 'GET /fail', 'GET /ok']);
      const ok = requests.find((c) => c.name === 'GET /ok')!;
      const rows = (ok.sections.http as HttpRow[] | undefined) ?? [];
      assert.deepEqual(
        rows.map((row) => [new URL(row.url).pathname, row.status]),
        [['/json', 200]],
      );
    });
  }
});
