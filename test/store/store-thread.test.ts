// Issue 28: the file store's thread builds the captures of the units it is handed. Tests: every body kind (JSON,
// form, text, event stream, binary, compressed, cut at the cap) under every config of body-kinds reads back
// exactly as the app's thread builds it, none of it built on this thread; and the bytes in flight to a thread
// that is held (its config load blocks until the test opens a gate) are bounded: past the bound units are
// dropped at once, counted in units and bytes, said once, and said again with the count when it drains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UnitInput } from '../../src/builder/input';
import type { ProbeConfig } from '../../src/config/types';
import { FileStore } from '../../src/store/FileStore';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { loadConfig } from '../../src/config/load';
import { resolveConfig } from '../../src/config/resolve';
import { threadWork } from '../../src/util/threadWork';
import { REPO_ROOT } from '../helpers/app';
import { runChild } from '../helpers/child';
import { callInput, T0, unitOf } from '../helpers/call-input';
import { CONFIGS, KINDS, kindCall } from '../helpers/body-kinds';
import { readerRows } from '../helpers/body-reader-rows';
import { appRoot, heldThreadRoot } from '../helpers/thread-app';

// The thread runs compiled code: the suite runs after `npm run build`.
const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

const unitAt = (i: number, calls: UnitInput['calls']): UnitInput => ({
  ...unitOf(calls),
  id: `unit_${String(i).padStart(6, '0')}`,
  startedAt: T0 + i,
  endedAt: T0 + i + 10,
});

/** A JSON response body of about `bytes` bytes with a secret in it. */
const bigJson = (bytes: number) => Buffer.from(JSON.stringify({ password: 'p', pad: 'x'.repeat(bytes) }));
const bigCall = (bytes: number) =>
  callInput({ responseHeaders: { 'content-type': 'application/json' }, responseBody: { chunks: [bigJson(bytes)], size: bytes + 30, truncated: false } });

/** A config file giving the thread what CONFIGS[name] gives the builder here (GraphqlCapture from the built package). */
function configFileText(name: string): string {
  if (name !== 'graphql') return `module.exports = ${JSON.stringify(CONFIGS[name])};\n`;
  const index = JSON.stringify(path.join(REPO_ROOT, 'dist', 'index.js'));
  return `const { GraphqlCapture } = require(${index});
module.exports = { lenses: { HttpClientLens: { bodies: true, capture: { response_types: { 'application/json': GraphqlCapture } } } } };\n`;
}

test('every body kind, built on the store thread, reads back as the app thread builds it; none is built here', async (t) => {
  const expected = readerRows();
  for (const name of Object.keys(CONFIGS)) {
    const root = appRoot(t, configFileText(name));
    const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
    const dir = path.join(root, '.probe', 'captures');
    const store = new ThreadedStore(new FileStore({ path: dir, limit: 100, within: path.join(root, '.probe') }), undefined, SCRIPT, {
      config,
      build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} },
    });
    t.after(() => store.close());
    // A unit keeping over 64 KiB of body starts the thread at once (smaller ones are built here until then).
    assert.equal(await store.putUnit(unitAt(0, [bigCall(100_000)])), true);
    assert.equal(store.threaded, true);
    const kinds = Object.keys(KINDS);
    const before = { ...threadWork };
    const kept = await Promise.all(kinds.map((kind, i) => store.putUnit(unitAt(i + 1, [kindCall(kind)]))));
    assert.ok(kept.every(Boolean), `${name}: every unit stored`);
    assert.deepEqual(threadWork, before, `${name}: no build, masking or serializing on this thread`);
    for (const [i, kind] of kinds.entries()) {
      const found = await store.find(unitAt(i + 1, []).id);
      assert.deepEqual(found?.sections.http?.[0], expected[`${name} / ${kind}`], `${name} / ${kind}`);
    }
  }
});

test('a held store thread: bytes in flight are bounded, units past the bound dropped at once and counted, said once, then again when drained', async (t) => {
  // The config load holds the thread (and only the thread) until the gate file exists.
  const { root, gate } = heldThreadRoot(t);
  const config = resolveConfig({ root, configFile: null, file: {} as ProbeConfig, env: {} });
  const lines: string[] = [];
  const logger = { warn: (line: string) => lines.push(line), debug: () => {}, warnOnce: (_key: string, line: string) => lines.push(line) };
  const dir = path.join(root, '.probe', 'captures');
  const store = new ThreadedStore(new FileStore({ path: dir, limit: 100, within: path.join(root, '.probe') }), logger, SCRIPT, {
    config,
    build: { cwd: root, env: { PROBE_ROOT: root, GATE: gate }, overrides: {} },
    maxBacklogBytes: 1024 * 1024,
  });
  t.after(() => store.close());

  // 300 KB units: three fit in 1 MiB with their fixed estimates, the other seven do not.
  const units = Array.from({ length: 10 }, (_, i) => unitAt(i, [bigCall(300_000)]));
  const puts = units.map((unit) => store.putUnit(unit));
  // The dropped ones are answered without the thread (it is still held): nothing here waits for it.
  const dropped = await Promise.all(puts.slice(3));
  assert.deepEqual(dropped, Array(7).fill(false));
  assert.equal(existsSync(gate), false, 'the thread was held all along');
  assert.equal(store.dropped.units, 7);
  assert.ok(store.dropped.bytes >= 7 * 300_000, `${store.dropped.bytes} bytes counted`);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /the store's thread fell behind \(\d+\.\d MB in flight\); dropping captures until it catches up/);

  writeFileSync(gate, '');
  assert.deepEqual(await Promise.all(puts.slice(0, 3)), [true, true, true]);
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(lines[1]!, /the store's thread caught up; 7 capture\(s\) \(2\.\d MB\) were dropped while it was behind \(7 since start\)/);
  const stored = (await store.index()).map((row) => row.id).sort();
  assert.deepEqual(
    stored,
    units.slice(0, 3).map((unit) => unit.id),
  );
  const first = await store.find(units[0]!.id);
  assert.match(String(first?.sections.http?.[0]?.response_capture?.raw), /^\{"password":"\*{8}","pad":"x+"\}$/);
});

// The exit path right after the hand-over: the thread cannot have answered (its answer needs a turn of this
// thread's loop), so the unit is built and written here, and the thread, still loading, must not hold the exit.
test('a unit held for a thread still loading its config is written at exit, and the thread does not hold the process', async (t) => {
  const root = appRoot(t, 'module.exports = {};\n');
  const dist = JSON.stringify(path.join(REPO_ROOT, 'dist'));
  writeFileSync(
    path.join(root, 'exit.js'),
    `const dist = ${dist};
const { ThreadedStore } = require(dist + '/store/ThreadedStore.js');
const { FileStore } = require(dist + '/store/FileStore.js');
const { loadConfig } = require(dist + '/config/load.js');
const { threadWork } = require(dist + '/util/threadWork.js');
const root = __dirname;
const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
const files = new FileStore({ path: root + '/.probe/captures', limit: 10, within: root + '/.probe' });
const store = new ThreadedStore(files, undefined, undefined, { config, build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} } });
store.putUnit(JSON.parse(process.argv[2], (key, value) => (key === 'chunks' ? value.map((text) => Buffer.from(text)) : value)));
console.log(JSON.stringify({ lost: store.settleSync(), threaded: store.threaded, builds: threadWork.builds }));`,
  );
  // 80 KB: over the 64 KiB that starts the thread, and within one argument's 128 KiB limit.
  const unit = unitAt(1, [bigCall(80_000)]);
  const wire = JSON.stringify(unit, (key, value) => (key === 'chunks' ? (value as Buffer[]).map((chunk) => chunk.toString()) : value));
  const run = await runChild(process.execPath, ['exit.js', wire], { cwd: root, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { lost: 0, threaded: true, builds: 1 }, 'built here: the thread had not loaded the config');
  const found = await new FileStore({ path: path.join(root, '.probe', 'captures'), limit: 10 }).find(unit.id);
  assert.match(String(found?.sections.http?.[0]?.response_capture?.raw), /^\{"password":"\*{8}","pad":"x+"\}$/);
});
