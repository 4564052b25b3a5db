// Issue 28: a unit stored again and again while it runs (the process's command capture) reaches the store's thread
// in parts: each version hands only the calls not handed before, the thread keeps the earlier ones by unit id and
// builds the whole capture. Tests, with a real thread and a file store (and Redis): every version reads back exactly
// as the same whole unit built on this thread and stored by a plain store (calls leaving the window, a call handed
// again with a new input, a call still in flight at the last version); each call's bodies are packed once; the
// thread drops the window with its last version, or when told that version was dropped; and when the thread dies,
// the next versions are built whole here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { CallInput, UnitInput } from '../../src/builder/input';
import type { ResolvedConfig } from '../../src/config/types';
import { FileStore } from '../../src/store/FileStore';
import { RedisStore } from '../../src/store/RedisStore';
import { RedisServer } from '../helpers/redis';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { buildCapture } from '../../src/builder/buildCapture';
import { loadConfig } from '../../src/config/load';
import { REPO_ROOT } from '../helpers/app';
import { callInput, T0, unitOf } from '../helpers/call-input';

const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

let redis: RedisServer;
before(async () => {
  redis = await RedisServer.start();
});
after(async () => {
  await redis?.kill();
});
const PAD = 5000;

function setUp(t: { after: (fn: () => void | Promise<void>) => void }, maxBacklogBytes?: number, driver: 'file' | 'redis' = 'file') {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-unit-parts-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'package.json'), '{"name":"app","private":true}');
  writeFileSync(path.join(root, 'probe.config.cjs'), 'module.exports = { lenses: { HttpClientLens: { bodies: true } } };\n');
  const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
  const lines: string[] = [];
  const logger = {
    warn: (line: string) => lines.push(line),
    debug: (line: string) => lines.push(line),
    warnOnce: (_k: string, line: string) => lines.push(line),
  };
  const redisStore = (prefix: string) => new RedisStore({ url: redis.url, prefix: `probe-parts-${process.pid}-${prefix}:`, ttl: 3600, limit: 100 });
  const driverStore = driver === 'file' ? new FileStore({ path: path.join(root, '.probe', 'captures'), limit: 100 }) : redisStore(`${Date.now()}-a`);
  const store = new ThreadedStore(driverStore, logger, SCRIPT, {
    config,
    build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} },
    maxBacklogBytes,
  });
  t.after(() => store.close());
  // What the same whole unit reads back as, built here and stored by a plain file store.
  const plain = driver === 'file' ? new FileStore({ path: path.join(root, 'plain'), limit: 100 }) : redisStore(`${Date.now()}-b`);
  t.after(() => plain.close());
  return { config, store, plain, lines };
}

/** A finished call with its own JSON answer (a secret in it, masked by the builder), PAD bytes and more. */
function call(n: number, over: Partial<CallInput> = {}): CallInput {
  const text = JSON.stringify({ n, password: 'hunter2', pad: 'q'.repeat(PAD) });
  return callInput({
    spanId: `s${n}`,
    url: `https://api.test/poll?n=${n}`,
    start: T0 + n * 10,
    end: T0 + n * 10 + 5,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: { chunks: [Buffer.from(text)], size: text.length, truncated: false },
    ...over,
  });
}
const bytesOf = (calls: CallInput[]) => calls.reduce((sum, c) => sum + (c.responseBody?.size ?? 0), 0);

/** One version of the window `cap_window0001` holding these calls. */
const version = (calls: CallInput[], partial: boolean, status = partial ? 'running' : 'window'): UnitInput => ({
  ...unitOf(calls),
  id: 'cap_window0001',
  status,
  endedAt: T0 + 1000 + calls.length,
  ...(partial ? { partial: true } : {}),
});

async function sameAsWhole(store: ThreadedStore, plain: FileStore | RedisStore, config: ResolvedConfig, unit: UnitInput): Promise<void> {
  const { partial: _partial, ...whole } = unit;
  const expected = buildCapture(whole, config);
  await plain.put(expected);
  assert.deepEqual(await store.find(unit.id), await plain.find(unit.id), `${unit.status} version with ${unit.calls.length} calls`);
}

const handedLines = (lines: string[]) =>
  lines.flatMap((line) => {
    const match = /unit cap_window0001 handed in parts: (\d+) new call\(s\) of (\d+), (\d+) body bytes/.exec(line);
    return match ? [[Number(match[1]), Number(match[2]), Number(match[3])]] : [];
  });
const backlogOf = (store: ThreadedStore) => (store as unknown as { backlog: { inFlight: number } }).backlog.inFlight;

for (const driver of ['file', 'redis'] as const) {
  test(`${driver}: a window handed in parts reads back as the whole unit at every version; each call packed once; nothing kept after the last`, async (t) => {
    const { config, store, plain, lines } = setUp(t, undefined, driver);
    // A unit keeping over 64 KiB of body starts the thread at once (smaller ones are built here until then).
    const big = callInput({ responseBody: { chunks: [Buffer.alloc(100_000, 'a')], size: 100_000, truncated: false } });
    assert.equal(await store.putUnit({ ...unitOf([big]), id: 'cap_starter001' }), true);
    assert.equal(store.threaded, true);
    assert.equal(backlogOf(store), 0);

    const calls = Array.from({ length: 12 }, (_, n) => call(n));
    const v1 = version(calls.slice(0, 4), true);
    const v2 = version(calls.slice(0, 7), true);
    // Call 2 left the window (folded past the cap), call 5 is given again as a new input (its decoded size was
    // still being counted before), calls 7 to 9 ended since.
    const again = call(5);
    const v3 = version([...calls.slice(0, 2), ...calls.slice(3, 5), again, calls[6]!, ...calls.slice(7, 10)], true);
    // The last version: one more call ended, one still in flight (no end, no answer yet).
    const inFlight = call(11, { end: null, status: null, responseBody: null });
    const last = version([...v3.calls, calls[10]!, inFlight], false);

    for (const unit of [v1, v2, v3]) {
      assert.equal(await store.putUnit(unit), true);
      await sameAsWhole(store, plain, config, unit);
      assert.equal(store.windowsKept, 1, 'the thread keeps the open window');
      assert.equal(backlogOf(store), 0, 'nothing in flight once answered: a kept window is not in the bound');
    }
    assert.equal(await store.putUnit(last), true);
    await sameAsWhole(store, plain, config, last);
    assert.equal(store.windowsKept, 0, 'the thread dropped the window with its last version');
    assert.equal(backlogOf(store), 0);

    assert.deepEqual(handedLines(lines), [
      [4, 4, bytesOf(calls.slice(0, 4))],
      [3, 7, bytesOf(calls.slice(4, 7))],
      [4, 9, bytesOf([again, ...calls.slice(7, 10)])],
      [2, 11, bytesOf([calls[10]!])],
    ]);
    assert.doesNotMatch(lines.join('\n'), /could not|lacks call|stopped/);
  });
}

test('when the store thread dies mid-window, the next versions are built whole here and stored complete', async (t) => {
  const { config, store, plain, lines } = setUp(t);
  // A fresh input each time: an ended unit's large chunks move to the thread (unitMessage.ts), as each call is in one unit.
  const big = () => callInput({ responseBody: { chunks: [Buffer.alloc(100_000, 'a')], size: 100_000, truncated: false } });
  assert.equal(await store.putUnit({ ...unitOf([big()]), id: 'cap_starter001' }), true);
  const calls = Array.from({ length: 9 }, (_, n) => call(n));
  const v1 = version(calls.slice(0, 3), true);
  const v2 = version(calls.slice(0, 6), true);
  for (const unit of [v1, v2]) {
    assert.equal(await store.putUnit(unit), true);
    await sameAsWhole(store, plain, config, unit);
  }
  const worker = (store as unknown as { worker: Worker }).worker;
  const gone = new Promise((resolve) => worker.once('exit', resolve));
  await worker.terminate();
  await gone;
  assert.equal(store.threaded, false);
  assert.match(lines.join('\n'), /write thread stopped/);
  assert.equal(backlogOf(store), 0, 'nothing left in flight');

  const v3 = version(calls.slice(0, 8), true);
  const last = version(calls, false, '0');
  for (const unit of [v3, last]) {
    assert.equal(await store.putUnit(unit), true);
    await sameAsWhole(store, plain, config, unit);
  }
  assert.equal(handedLines(lines).length, 2, 'only the versions before the thread died went in parts');
});

test('past the bound, a running version is dropped (the next one hands its calls again) but the last version goes: the thread holds the rest of its window', async (t) => {
  // Room for one unit in flight, not for a version of the window beside it.
  const { config, store, plain, lines } = setUp(t, 30_000);
  // A fresh input each time: an ended unit's large chunks move to the thread (unitMessage.ts), as each call is in one unit.
  const big = () => callInput({ responseBody: { chunks: [Buffer.alloc(100_000, 'a')], size: 100_000, truncated: false } });
  assert.equal(await store.putUnit({ ...unitOf([big()]), id: 'cap_starter001' }), true);
  const calls = Array.from({ length: 5 }, (_, n) => call(n));
  const v1 = version(calls.slice(0, 2), true);
  assert.equal(await store.putUnit(v1), true);
  await sameAsWhole(store, plain, config, v1);
  assert.equal(store.windowsKept, 1);
  const other = store.putUnit({ ...unitOf([big()]), id: 'cap_other00001' });
  assert.equal(await store.putUnit(version(calls.slice(0, 4), true)), false, 'a running version past the bound is dropped');
  assert.match(lines.join('\n'), /fell behind/);
  const last = version(calls, false);
  assert.equal(await store.putUnit(last), true, 'the last version goes past the bound');
  assert.equal(await other, true);
  // Every call of the window is there: the dropped version's calls were handed again with the last one.
  await sameAsWhole(store, plain, config, last);
  assert.equal(store.windowsKept, 0, 'the thread let go of the window with its last version');
  // The thread still builds: another window handed whole.
  const next = { ...version([call(7)], true), id: 'cap_window0002' };
  assert.equal(await store.putUnit(next), true);
  await sameAsWhole(store, plain, config, next);
});
