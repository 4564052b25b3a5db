import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { TestApp, waitForLine, collect } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import type { Capture } from '../../src/capture/types';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

// Each request makes one call, and with ?job=1 runs a job() that makes another.
const SERVER = `
const http = require('node:http');
const { job } = require('probe');
const server = http.createServer(async (req, res) => {
  await fetch(process.env.UP + '/json').then((r) => r.text());
  if (req.url.includes('job=1')) await job('follow-up', () => fetch(process.env.UP + '/text').then((r) => r.text()));
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

/** Runs the server under the given sampling, sends the requests, stops it (the exit path stores what is due). */
async function serve(
  env: Record<string, string>,
  requests: Array<{ path: string; traceId?: string }>,
  config?: string,
): Promise<{ app: TestApp; captures: Capture[]; all: Capture[] }> {
  const app = new TestApp({ 'server.js': SERVER, ...(config ? { 'probe.config.mjs': config } : {}) });
  const child = app.spawn('server.js', { env: { UP: upstream.url, ...env } });
  try {
    const [, port] = await waitForLine(child, /listening (\d+)/);
    for (const { path, traceId } of requests) {
      const headers: Record<string, string> = traceId ? { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } : {};
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      assert.equal(await res.text(), 'ok', 'the app answers as without Probe');
    }
  } finally {
    child.kill('SIGTERM');
    await collect(child);
  }
  const all = app.captures();
  return { app, captures: all.filter(sentHere), all };
}

/**
 * Only this file's own traffic counts: the servers listen on ports the system picks, and a port one test let go
 * can be the next server's while another test file running beside it (or another run on the machine) still calls
 * it as a port "nothing listens on" (its refused-connection case): such a request is no part of the sampling
 * asked here. Every request these tests send asks for `/work`.
 */
function sentHere(capture: Capture): boolean {
  return capture.type !== 'request' || new URL(capture.sections.request!.url).pathname === '/work';
}

const many = (n: number, path = '/work') => Array.from({ length: n }, () => ({ path, traceId: randomBytes(16).toString('hex') }));

test('sampling.rate 0 records nothing, and the app and its upstream see every call', async () => {
  const calls = () => upstream.received.filter((request) => request.url === '/json' || request.url === '/text').length;
  const before = calls();
  const { captures } = await serve({ PROBE_SAMPLE_RATE: '0' }, many(20, '/work?job=1'));
  assert.deepEqual(captures, []);
  assert.equal(calls() - before, 40);
});

test('sampling.rate 0.1 records about a tenth of the requests, each saying so, and probe list tells what was left out', async () => {
  const { app, captures, all } = await serve({ PROBE_SAMPLE_RATE: '0.1' }, many(200));
  const requests = captures.filter((c) => c.type === 'request');
  assert.ok(requests.length >= 5 && requests.length <= 45, `${requests.length} of 200 requests recorded`);
  assert.ok(requests.every((c) => c.meta.sampling?.rate === 0.1 && c.meta.sampling.max_per_second === null));
  assert.ok(
    requests.every((c) => c.sections.http?.length === 1),
    'a sampled request is recorded whole',
  );
  // Counted over every capture stored, as probe list counts them.
  const skipped = all.reduce((sum, c) => sum + (c.type === 'request' ? (c.meta.sampling?.skipped ?? 0) : 0), 0);
  assert.ok(skipped >= 120, `${skipped} requests reported as left out`);
  const listed = await app.cli(['list', '--json']);
  const result = JSON.parse(listed.stdout) as { sampling: { rate: number; skipped: number }; note: string };
  assert.equal(result.sampling.rate, 0.1);
  assert.equal(result.sampling.skipped, skipped);
  assert.match(result.note, /Sampling is in effect \(rate 0\.1\): \d+ request\(s\), job\(s\) or command\(s\) were not recorded/);
  assert.match((await app.cli(['list'])).stdout, /Sampling is in effect/);
});

test('a job started inside a request follows the request: recorded with it, or not at all', async () => {
  const { captures } = await serve({ PROBE_SAMPLE_RATE: '0.5' }, many(60, '/work?job=1'));
  const requests = captures.filter((c) => c.type === 'request');
  const jobs = captures.filter((c) => c.type === 'job');
  assert.ok(requests.length > 5 && requests.length < 55, `${requests.length} of 60`);
  assert.deepEqual(jobs.map((j) => j.parent_id).sort(), requests.map((r) => r.id).sort(), 'every recorded request has its job, and no job is recorded alone');
});

test('two services that see the same traces decide alike', async () => {
  // The same 80 traces reach both services (the caller's traceparent); each request says which one it is.
  const traffic = many(80).map((request, n) => ({ ...request, path: `/work?n=${n}` }));
  const [a, b] = await Promise.all([serve({ PROBE_SAMPLE_RATE: '0.3' }, traffic), serve({}, traffic, 'export default { sampling: { rate: 0.3 } };\n')]);
  const traces = (captures: Capture[]) =>
    captures
      .filter((c) => c.type === 'request')
      .map((c) => new URL(c.sections.request!.url).searchParams.get('n'))
      .sort();
  assert.ok(traces(a.captures).length > 5 && traces(a.captures).length < 60, `${traces(a.captures).length} of 80`);
  assert.deepEqual(traces(a.captures), traces(b.captures));
});

test('sampling.max_per_second caps the captures started per second and counts the rest', async () => {
  const { captures } = await serve({}, many(60), 'export default { sampling: { max_per_second: 5 } };\n');
  const requests = captures.filter((c) => c.type === 'request');
  const perSecond = new Map<number, number>();
  for (const c of requests) perSecond.set(Math.floor(c.started_at), (perSecond.get(Math.floor(c.started_at)) ?? 0) + 1);
  assert.ok(
    [...perSecond.values()].every((n) => n <= 5),
    `per second: ${[...perSecond.values()]}`,
  );
  assert.ok(requests.every((c) => c.meta.sampling?.max_per_second === 5 && c.meta.sampling.rate === 1));
  assert.equal(requests.length + requests.reduce((sum, c) => sum + (c.meta.sampling?.skipped ?? 0), 0) <= 61, true);
});
