// Issue 28 (peak RSS): the store's thread collects its heap between batches once its builds grew it by a step
// (HeapCollector), so the heap stays near its live size while the thread is busy. Tests: a heap grown past the step
// by garbage is collected once asked (its use falls by the garbage); one within the step is left to V8; and in an
// app's process, a thread building units of large bodies asks for collections while nothing of it reaches the app
// (no ExperimentalWarning of `vm.measureMemory` on the app's stderr, every unit stored).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { HeapCollector } from '../../src/store/HeapCollector';
import { FileStore } from '../../src/store/FileStore';
import { REPO_ROOT } from '../helpers/app';
import { runChild } from '../helpers/child';
import { appRoot } from '../helpers/thread-app';

const MB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;

test('a heap grown past the step is collected when asked; one within the step is left to V8', { timeout: 60_000 }, async () => {
  const collector = new HeapCollector(4 * MB);
  await collector.afterBatch(used());
  // 32 MB of strings on the heap (flat, and under the size Node makes external), held until read (so the figure passed includes them), then let go.
  let garbage: string[] | null = Array.from({ length: 128 }, (_, i) => Buffer.alloc(MB / 4, 97 + (i % 26)).toString('latin1'));
  const grown = used();
  assert.ok(garbage.length === 128 && grown > 30 * MB, `${grown} bytes in use`);
  garbage = null;
  await collector.afterBatch(grown);
  assert.equal(collector.collections, 1);
  assert.ok(used() < grown - 24 * MB, `${used()} bytes in use after, ${grown} before`);

  const within = used();
  await collector.afterBatch(within + MB);
  assert.equal(collector.collections, 1, 'no collection within the step');
});

// The app: units of 3 × 300 KB JSON answers handed to the store as the runtime does; the thread's heap grows by
// more than the step within a few units.
const APP = `const dist = process.argv[2];
const { ThreadedStore } = require(dist + '/store/ThreadedStore.js');
const { FileStore } = require(dist + '/store/FileStore.js');
const { loadConfig } = require(dist + '/config/load.js');
const root = __dirname;
const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
const store = new ThreadedStore(new FileStore({ path: root + '/.probe/captures', limit: 100, within: root + '/.probe' }), undefined, undefined, {
  config,
  build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} },
  // A step small enough that the thread's builds pass it whatever V8 collected on its own meanwhile.
  heapStepBytes: 1024 * 1024,
});
const page = (seed) => Buffer.from(JSON.stringify({ items: Array.from({ length: 3000 }, (_, id) => ({ id, seed, note: 'a record of a page of orders' })) }));
const call = (i, chunk) => ({ spanId: 's' + i, parentSpanId: 'root1', method: 'GET', url: 'http://api.test/x', requestHeaders: {}, requestBody: null,
  status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: { chunks: [chunk], size: chunk.length, truncated: false },
  clientDecodes: true, start: 1 + i, end: 2 + i, timing: null, error: null, pool: null, fake: false, origin: null });
const unit = (n) => ({ id: 'cap_' + String(n).padStart(8, '0'), type: 'request', name: 'GET /x', status: '200', parentId: null, traceId: 'f'.repeat(32),
  linkedVia: null, rootSpanId: 'root1', startedAt: 1000 + n, endedAt: 1010 + n, endedBy: 'response', label: null, tags: [], jobId: null,
  meta: { pid: 1, hostname: 'h', node: 'v', service: 's' }, request: null, spans: [], calls: [0, 1, 2].map((i) => call(i, page(n * 3 + i))), pools: [] });
(async () => {
  const kept = [];
  // A few at a time, as requests end, so the thread answers batches (and collects between them).
  for (let n = 0; n < 60; n += 4) kept.push(...(await Promise.all([0, 1, 2, 3].map((i) => store.putUnit(unit(n + i))))));
  await new Promise((resolve) => setTimeout(resolve, 200));
  console.log(JSON.stringify({ kept, threaded: store.threaded, collections: store.memory().collections }));
  await store.close();
})();
`;

test("an app's store thread building large units collects its heap, and nothing of it reaches the app", { timeout: 180_000 }, async (t) => {
  const root = appRoot(t, 'module.exports = {};\n');
  writeFileSync(path.join(root, 'app.js'), APP);
  const run = await runChild(process.execPath, ['app.js', path.join(REPO_ROOT, 'dist')], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 120_000,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '', 'no warning of the thread reaches the app');
  const out = JSON.parse(run.stdout) as { kept: boolean[]; threaded: boolean; collections: number };
  assert.equal(out.threaded, true);
  assert.deepEqual(out.kept, Array(60).fill(true));
  assert.ok(out.collections >= 1, `${out.collections} collections`);
  const files = new FileStore({ path: path.join(root, '.probe', 'captures'), limit: 100 });
  assert.equal((await files.index()).length, 60);
});
