// A long unit (a script's command capture, stored every second while it runs, then at its end) turns each ended call
// into its stored form once, on the store's thread, whatever versions of it are written: read from a child app
// under the preload, by the per-thread work counters (util/threadWork: rows built, rows serialised), the app
// thread's printed by the app, the store thread's said under PROBE_DEBUG after each batch. Counts, never times.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

const WORK = path.join(REPO_ROOT, 'dist', 'util', 'threadWork.js');

// 100 calls at once (fetch and node:http), then a few at a time until three running versions with different row
// counts were stored (read from the capture file, as a reader would), then the end: a shutdown, or the process's
// natural end. The app's thread prints its own counters as the process exits.
const APP = `const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { threadWork } = require(process.env.WORK);
const dir = path.join(process.cwd(), '.probe', 'captures');
const agent = new http.Agent({ keepAlive: true });
const viaHttp = () => new Promise((resolve, reject) => http.get(process.env.UP + '/json', { agent }, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject));
const viaFetch = () => fetch(process.env.UP + '/json').then((r) => r.text());
let calls = 0;
const call = () => (calls++ % 2 ? viaHttp() : viaFetch());
function runningRows() {
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    try {
      const { capture } = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      if (capture.status === 'running') return capture.sections.http.length;
    } catch {}
  }
  return null;
}
process.on('exit', () => console.log('WORK ' + JSON.stringify(threadWork)));
(async () => {
  await Promise.all(Array.from({ length: 100 }, call));
  const seen = new Set();
  while (seen.size < 3) {
    await call();
    await call();
    const rows = runningRows();
    if (rows) seen.add(rows);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  console.log('CALLS ' + calls);
  agent.destroy();
  if (process.env.END === 'shutdown') await require('probe').start().shutdown();
})();`;

interface Work {
  builds: number;
  serialised: number;
  rows: number;
  rowsSerialised: number;
}

async function runLongScript(end: 'shutdown' | 'exit') {
  const app = new TestApp({ 'run.js': APP, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { max_rows: 100_000 } } }) });
  const run = await app.run('run.js', { env: { UP: upstream.url, WORK, END: end, PROBE_DEBUG: '1' } });
  assert.equal(run.code, 0, run.stderr);
  const calls = Number(/^CALLS (\d+)$/m.exec(run.stdout)![1]);
  const appThread = JSON.parse(/^WORK (.*)$/m.exec(run.stdout)![1]!) as Work;
  const threadLines = [...run.stderr.matchAll(/store thread work: (\{.*\})/g)].map((m) => JSON.parse(m[1]!) as Work);
  const handed = run.stderr.match(/handed in parts: \d+ new call/g)?.length ?? 0;
  const command = app.captures().find((c) => c.type === 'command')!;
  return { calls, appThread, thread: threadLines.at(-1)!, handed, command, stderr: run.stderr };
}

test('a long unit with several running versions: each call is built and serialised once, on the store thread', async () => {
  const { calls, appThread, thread, handed, command, stderr } = await runLongScript('shutdown');
  assert.ok(handed >= 4, `three running versions and the final one handed in parts (${handed})\n${stderr}`);
  assert.deepEqual({ builds: appThread.builds, rows: appThread.rows, rowsSerialised: appThread.rowsSerialised }, { builds: 0, rows: 0, rowsSerialised: 0 });
  assert.ok(thread.builds >= 4, `every version built on the store thread (${thread.builds})`);
  assert.equal(thread.rows, calls, 'each call built into a row once');
  assert.equal(thread.rowsSerialised, calls, 'each row serialised once');
  assert.notEqual(command.status, 'running');
  assert.equal(command.sections.http!.length, calls);
  assert.equal(command.summary.totals!.http_calls, calls);
});

test('a long unit ending with its process: its last version goes to the store thread, not built again on the app thread', async () => {
  const { calls, appThread, command, stderr } = await runLongScript('exit');
  assert.deepEqual(
    { builds: appThread.builds, rows: appThread.rows, rowsSerialised: appThread.rowsSerialised },
    { builds: 0, rows: 0, rowsSerialised: 0 },
    stderr,
  );
  assert.notEqual(command.status, 'running');
  assert.equal(command.sections.http!.length, calls, stderr);
  // Every row whole, in start order, with its own answer (masked where the upstream sets a cookie).
  assert.ok(command.sections.http!.every((row) => row.status === 200 && row.response_headers['set-cookie'] === '********'));
  assert.doesNotMatch(stderr, /could not|lost/);
});

// Jobs are stored once each, handed whole: their rows are serialised with their capture in one piece, never
// through the row cache (its weak entries would be collector work for nothing on a worker whose every call is a row).
const JOBS_APP = `const { job } = require('probe');
const { threadWork } = require(process.env.WORK);
process.on('exit', () => console.log('WORK ' + JSON.stringify(threadWork)));
(async () => {
  for (let j = 0; j < 16; j++) {
    await job('batch', async () => {
      for (let i = 0; i < 5; i++) await fetch(process.env.UP + '/json').then((r) => r.text());
    });
  }
})();`;

test('units handed whole (jobs) are serialised whole on the store thread, not row by row through the row cache', async () => {
  const app = new TestApp({ 'run.js': JOBS_APP });
  const run = await app.run('run.js', { env: { UP: upstream.url, WORK, PROBE_DEBUG: '1' } });
  assert.equal(run.code, 0, run.stderr);
  const thread = [...run.stderr.matchAll(/store thread work: (\{.*\})/g)].map((m) => JSON.parse(m[1]!) as Work).at(-1);
  assert.ok(thread && thread.builds > 0 && thread.rows >= 5 * thread.builds, `jobs built on the store thread\n${run.stderr}`);
  assert.equal(thread.rowsSerialised, 0, 'no row serialised apart');
  assert.equal(thread.serialised, thread.builds, 'each capture serialised once');
  const jobs = app.captures().filter((c) => c.type === 'job');
  assert.equal(jobs.length, 16);
  assert.ok(jobs.every((c) => c.sections.http!.length === 5 && c.sections.http!.every((row) => row.status === 200)));
});
