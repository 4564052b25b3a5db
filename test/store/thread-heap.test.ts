// Issue 28 (peak RSS): the store's thread runs within V8 heap bounds (threadLimits.ts), and the bytes handed to it
// are bounded (Backlog). Tests: a thread that runs out of its heap (bounds made tiny here) is replaced without the
// app noticing (no throw, no unhandled rejection, exit code 0, nothing on stderr): the units it held are resolved
// as dropped, counted, said once, and the next units are stored by the new thread; and with a held thread and
// large units, the bytes in flight never pass the bound while the app keeps putting, the rest counted as dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UnitInput } from '../../src/builder/input';
import type { ProbeConfig } from '../../src/config/types';
import { FileStore } from '../../src/store/FileStore';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { resolveConfig } from '../../src/config/resolve';
import { REPO_ROOT } from '../helpers/app';
import { runChild } from '../helpers/child';
import { callInput, T0, unitOf } from '../helpers/call-input';
import { appRoot, heldThreadRoot } from '../helpers/thread-app';

const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

// The app: a script that hands units to the store as the runtime does, with the thread's heap bounded at 16 MB. Two
// units of 20 calls with 1 MB JSON bodies each cannot be built within it; the small ones between and after can.
const APP = `const dist = process.argv[2];
const { ThreadedStore } = require(dist + '/store/ThreadedStore.js');
const { FileStore } = require(dist + '/store/FileStore.js');
const { loadConfig } = require(dist + '/config/load.js');
const root = __dirname;
const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
const files = new FileStore({ path: root + '/.probe/captures', limit: 50, within: root + '/.probe' });
const lines = [];
const said = new Set();
const logger = { warn: (line) => lines.push(line), debug: () => {}, warnOnce: (key, line) => said.has(key) || (said.add(key), lines.push(line)) };
const store = new ThreadedStore(files, logger, undefined, {
  config,
  build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} },
  threadLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 },
});
const T0 = ${T0};
const page = (records, seed) => Buffer.from(JSON.stringify({ items: Array.from({ length: records }, (_, id) => ({ id, seed, note: 'a record of a page of orders' })) }));
const call = (i, chunk) => ({ spanId: 's' + i, parentSpanId: 'root1', method: 'GET', url: 'http://api.test/x', requestHeaders: {}, requestBody: null,
  status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: { chunks: [chunk], size: chunk.length, truncated: false },
  clientDecodes: true, start: T0 + i, end: T0 + i + 1, timing: null, error: null, pool: null, fake: false, origin: null });
const unit = (n, calls) => ({ id: 'cap_' + String(n).padStart(8, '0'), type: 'command', name: 'x', status: '0', parentId: null, traceId: 'f'.repeat(32),
  linkedVia: null, rootSpanId: 'root1', startedAt: T0 + n, endedAt: T0 + n + 10, endedBy: 'return', label: null, tags: [], jobId: null,
  meta: { pid: 1, hostname: 'h', node: 'v', service: 's' }, request: null, spans: [], calls, pools: [] });
const huge = (n) => unit(n, Array.from({ length: 20 }, (_, i) => call(i, page(17000, i))));
const small = (n) => unit(n, [call(0, page(2000, n))]);
(async () => {
  const kept = [];
  for (const next of [huge(1), small(2), huge(3), small(4)]) kept.push(await store.putUnit(next));
  console.log(JSON.stringify({ kept, dropped: store.dropped, threaded: store.threaded, lines }));
  await store.close();
})();
`;

test('a store thread out of its heap bound is replaced unnoticed: its units counted lost, said once, the next ones stored', { timeout: 180_000 }, async (t) => {
  const root = appRoot(t, 'module.exports = { lenses: { HttpClientLens: { bodies: true } } };\n');
  writeFileSync(path.join(root, 'app.js'), APP);
  const run = await runChild(process.execPath, ['app.js', path.join(REPO_ROOT, 'dist')], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 120_000,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '', 'nothing reaches the app: no unhandled rejection, no uncaught error');
  const out = JSON.parse(run.stdout) as { kept: boolean[]; dropped: { units: number; lost: number }; threaded: boolean; lines: string[] };
  assert.deepEqual(out.kept, [false, true, false, true], 'the huge units lost, the small ones stored');
  assert.deepEqual(out.dropped, { units: 0, bytes: 0, lost: 2 });
  assert.equal(out.threaded, true, 'a thread still builds (not the app thread)');
  assert.equal(out.lines.length, 1, out.lines.join('\n'));
  assert.match(
    out.lines[0]!,
    /^the store's thread ran out of its heap bound; 1 capture\(s\) it was building were lost \(1 since start\); a new thread took over$/,
  );
  const files = new FileStore({ path: path.join(root, '.probe', 'captures'), limit: 50 });
  assert.deepEqual((await files.index()).map((row) => row.id).sort(), ['cap_00000002', 'cap_00000004']);
});

const unitAt = (i: number, bytes: number): UnitInput => ({
  ...unitOf([
    callInput({
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: { chunks: [Buffer.from(JSON.stringify({ pad: 'x'.repeat(bytes) }))], size: bytes + 10, truncated: false },
    }),
  ]),
  id: `unit_${String(i).padStart(6, '0')}`,
  startedAt: T0 + i,
  endedAt: T0 + i + 10,
});

test(
  'a held thread and large units: the bytes in flight never pass the bound while the app keeps putting; the rest dropped and counted',
  { timeout: 180_000 },
  async (t) => {
    // The config load holds the thread (and only the thread) until the gate file exists.
    const { root, gate } = heldThreadRoot(t);
    const config = resolveConfig({ root, configFile: null, file: {} as ProbeConfig, env: {} });
    const bound = 2 * 1024 * 1024;
    const logger = { warn: () => {}, debug: () => {}, warnOnce: () => {} };
    const store = new ThreadedStore(
      new FileStore({ path: path.join(root, '.probe', 'captures'), limit: 100, within: path.join(root, '.probe') }),
      logger,
      SCRIPT,
      {
        config,
        build: { cwd: root, env: { PROBE_ROOT: root, GATE: gate }, overrides: {} },
        maxBacklogBytes: bound,
      },
    );
    t.after(() => store.close());
    const puts: Array<Promise<boolean>> = [];
    let most = 0;
    for (let i = 0; i < 40; i++) {
      puts.push(store.putUnit(unitAt(i, 200_000)));
      most = Math.max(most, store.inFlight);
      // The app's loop turns between units, as a server's does between requests.
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(most <= bound, `${most} bytes in flight, bound ${bound}`);
    writeFileSync(gate, '');
    const kept = await Promise.all(puts);
    const stored = kept.filter(Boolean).length;
    assert.ok(stored >= 1 && stored <= 10, `${stored} stored`);
    assert.equal(store.dropped.units, 40 - stored, 'every unit not stored is counted');
    assert.equal(store.inFlight, 0, 'all answered');
    assert.equal((await store.index()).length, stored);
  },
);
