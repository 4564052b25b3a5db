// The app's runtime writes file-store captures on a worker thread (ThreadedStore). Tests: the thread
// really takes the writes and they land; its faults come back as StoreErrors; a dead thread loses nothing;
// apps that end in every way, after enough captures to have started the thread, keep all of them; and
// FIFOs planted in the folder are never opened, so none can hold the thread or the app.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { FileStore } from '../../src/store/FileStore';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { StoreError } from '../../src/store/StoreError';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { makeCapture } from './contract';

// The thread runs compiled code: the suite runs after `npm run build`.
const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

function tempFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-threaded-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('past the first puts, a worker thread writes the captures, and they all land', async (t) => {
  const dir = path.join(tempFolder(t), 'captures');
  const store = new ThreadedStore(new FileStore({ path: dir, limit: 50 }), undefined, SCRIPT);
  t.after(() => store.close());
  const base = Date.now() / 1000;
  const captures = Array.from({ length: 30 }, (_, i) => makeCapture({ startedAt: base + i, bytes: 5_000 }));
  // A short script's few captures are written in-thread: no thread is started for them.
  for (const capture of captures.slice(0, 8)) await store.put(capture);
  assert.equal(store.threaded, false, 'no thread for the first 8 puts');
  await Promise.all(captures.slice(8).map((capture) => store.put(capture)));
  assert.equal(store.threaded, true, 'the write thread took over');
  const listed = await new FileStore({ path: dir, limit: 50 }).index();
  assert.deepEqual(
    listed.map((row) => row.id),
    captures.map((c) => c.id).reverse(),
  );
  assert.equal((await store.find(captures[29]!.id))?.id, captures[29]!.id);
  await assert.rejects(store.put(makeCapture({ id: '../x' })), (error: unknown) => error instanceof StoreError && error.code === 'PROBE_STORE_BAD_ID');
});

test('puts reach the thread in batches: one message for a burst, not one per capture', async (t) => {
  const dir = path.join(tempFolder(t), 'captures');
  const store = new ThreadedStore(new FileStore({ path: dir, limit: 500 }), undefined, SCRIPT);
  t.after(() => store.close());
  const base = Date.now() / 1000;
  for (let i = 0; i < 8; i++) await store.put(makeCapture({ startedAt: base + i }));
  const burst = (from: number, count: number) => Array.from({ length: count }, (_, i) => makeCapture({ startedAt: base + from + i }));
  const first = burst(8, 40);
  const puts = first.map((c) => store.put(c)); // the thread starts at the first of these
  const worker = (store as unknown as { worker: Worker }).worker;
  const sent: number[] = [];
  const post = worker.postMessage.bind(worker);
  worker.postMessage = (batch: unknown[]) => (sent.push(batch.length), post(batch));
  await Promise.all(puts);
  assert.deepEqual(sent, [40], 'one message carried the whole burst');
  // A burst past the batch size leaves in several messages, none over the size.
  const second = burst(48, 150);
  await Promise.all(second.map((c) => store.put(c)));
  assert.equal(
    sent.slice(1).reduce((a, b) => a + b, 0),
    150,
  );
  assert.ok(sent.length >= 4 && sent.slice(1).every((n) => n <= 64), `batches ${sent}`);
  const ids = new Set((await store.index()).map((row) => row.id));
  for (const c of [...first, ...second]) assert.ok(ids.has(c.id), `capture ${c.id} kept`);
});

test("after a batch, the store's thread says what its heap holds (zeros before)", async (t) => {
  const dir = path.join(tempFolder(t), 'captures');
  const store = new ThreadedStore(new FileStore({ path: dir, limit: 50 }), undefined, SCRIPT);
  t.after(() => store.close());
  assert.deepEqual(store.memory(), { heapUsed: 0, heapTotal: 0, external: 0, collections: 0 });
  const base = Date.now() / 1000;
  // Past the first 8 puts, written here: the rest go to the thread, which answers after their batch.
  await Promise.all(Array.from({ length: 12 }, (_, i) => store.put(makeCapture({ startedAt: base + i }))));
  assert.equal(store.threaded, true);
  const { heapUsed, heapTotal, external } = store.memory();
  assert.ok(heapUsed > 0 && heapTotal >= heapUsed, `heap ${heapUsed} of ${heapTotal}`);
  assert.ok(external >= 0, `external ${external}`);
});

test('a write the thread cannot make rejects its put with a StoreError', async (t) => {
  const root = tempFolder(t);
  const blocked = path.join(root, 'not-a-folder');
  writeFileSync(blocked, 'a file where the folder should be');
  const store = new ThreadedStore(new FileStore({ path: blocked, limit: 5 }), undefined, SCRIPT);
  t.after(() => store.close());
  const results = await Promise.allSettled(Array.from({ length: 12 }, () => store.put(makeCapture())));
  assert.equal(store.threaded, true);
  const last = results.at(-1)!;
  assert.equal(last.status, 'rejected');
  const reason = (last as PromiseRejectedResult).reason;
  assert.ok(reason instanceof StoreError, String(reason));
  assert.equal(reason.code, 'PROBE_STORE_WRITE', 'a file system error gets the store code, its errno in the message');
  assert.match(reason.message, /ENOTDIR|EEXIST/);
});

test('when the thread dies, its pending puts and all later ones are written on the calling thread', async (t) => {
  const dir = path.join(tempFolder(t), 'captures');
  const warnings: string[] = [];
  const logger = { warn: () => {}, debug: () => {}, warnOnce: (_key: string, message: string) => warnings.push(message) };
  const store = new ThreadedStore(new FileStore({ path: dir, limit: 100 }), logger, SCRIPT);
  const base = Date.now() / 1000;
  const first = Array.from({ length: 10 }, (_, i) => makeCapture({ startedAt: base + i }));
  await Promise.all(first.map((c) => store.put(c)));
  assert.equal(store.threaded, true);
  const worker = (store as unknown as { worker: Worker }).worker;
  const inFlight = Array.from({ length: 10 }, (_, i) => makeCapture({ startedAt: base + 10 + i }));
  const puts = inFlight.map((c) => store.put(c));
  await worker.terminate();
  await Promise.all(puts);
  const later = makeCapture({ startedAt: base + 30 });
  await store.put(later);
  assert.equal(store.threaded, false);
  assert.match(warnings.join('\n'), /write thread stopped/);
  const ids = new Set((await store.index()).map((row) => row.id));
  for (const c of [...first, ...inFlight, later]) assert.ok(ids.has(c.id), `capture ${c.id} kept`);
  await store.close();
});

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

// 20 jobs: well past the puts written before the thread starts.
const jobs = `const { job } = require('probe');
(async () => {
  for (let i = 0; i < 20; i++) await job('job ' + i, () => fetch(process.env.UP + '/json').then((r) => r.text()));
  END;
})();`;

for (const [how, end, code] of [
  ['ends by itself', '', 0],
  ['calls process.exit() at once', 'process.exit(3)', 3],
  ['dies of an uncaught exception', 'setImmediate(() => { throw new Error("boom"); })', 1],
] as const) {
  test(`an app that makes 20 captures and ${how} keeps every one`, async () => {
    const app = new TestApp({ 'run.js': jobs.replace('END', end) });
    const run = await app.run('run.js', { env: { UP: upstream.url } });
    assert.equal(run.code, code, run.stderr);
    const names = app
      .captures()
      .map((c) => c.name)
      .sort();
    const expected = [...Array.from({ length: 20 }, (_, i) => `job ${i}`), 'run.js'].sort();
    assert.deepEqual(names, expected, run.stderr);
    assert.doesNotMatch(run.stderr, /\[probe\]/, 'no warning from Probe');
  });
}

// FIFOs planted in the folder under a capture's name, an old spare's and a temp file's: an open() of one would
// block in the kernel until a reader opens the other end. The store never opens anything but the regular
// files it lists (and opens those non-blocking), so the app keeps serving and every capture lands.
const server = `const http = require('node:http');
let n = 0;
http.createServer(async (req, res) => {
  const body = await (await fetch(process.env.UP + '/json')).text();
  res.end('ok ' + (++n) + ' ' + body.length);
}).listen(0, '127.0.0.1', function () { console.log('listening ' + this.address().port); });`;

test('FIFOs planted in the capture folder hold neither the write thread nor the app, and stay untouched', async (t) => {
  const app = new TestApp({ 'server.js': server, 'probe.config.mjs': 'export default { storage: { limit: 5 } };\n' });
  const dir = path.join(app.dir, '.probe', 'captures');
  mkdirSync(dir, { recursive: true, mode: 0o700 }); // private, as Probe makes it
  const planted = ['00000000000000001-Fifo00000000.json', '.spare.stuck-disk.1', '.00000000000000002-Fifo00000001.json.1.ab.1.tmp'];
  for (const name of planted) execFileSync('mkfifo', [path.join(dir, name)]);
  const child = app.spawn('server.js', { env: { UP: upstream.url } });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`server exited: ${stderr}`)));
  });
  // Each request must come back; a generous bound (a loaded machine is slow, not stuck) turns a held event loop
  // into a failure, not a hang.
  const ask = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(60_000) });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /^ok \d+ \d+$/);
  };
  // Past the first 8 captures (written on the app's thread), the write thread has them.
  for (let i = 0; i < 20; i++) await ask();
  const listed = await app.cli(['list', '--json'], { timeout: 20_000 });
  assert.equal(listed.code, 0, listed.stderr);
  await until(async () => {
    const { captures } = JSON.parse((await app.cli(['list', '--json', '--limit', '50'], { timeout: 20_000 })).stdout) as { captures: Array<{ name: string }> };
    return captures.length === 5 && captures.every((row) => row.name === 'GET /');
  });
  const fifos = readdirSync(dir).filter((name) => lstatSync(path.join(dir, name)).isFIFO());
  assert.deepEqual(fifos.sort(), [...planted].sort(), 'the FIFOs are neither opened, renamed nor removed');
  assert.doesNotMatch(stderr, /\[probe\]/);
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
