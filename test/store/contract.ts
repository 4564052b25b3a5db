// The store contract (SPEC 5) as a suite any driver runs: `runStoreContract(driver)`. Stores are resolved the
// way the app, the CLI and the dashboard resolve them: from an app root's probe.config.mjs (openStore: load
// config → register(probe) → create the store), in this process and in separate writer processes.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Capture, IndexRow } from '../../src/capture/types';
import type { Store } from '../../src/capture/Store';
import { indexRowOf } from '../../src/capture/indexRow';
import { openStore as openStoreOf } from '../../src/store/openStore';
import { createLogger } from '../../src/util/logger';
import { REPO_ROOT, TestApp, eventually } from '../helpers/app';
import { runChild } from '../helpers/child';
// @ts-expect-error plain .mjs fixture shared with the writer processes and the benchmark
import { makeCapture as makeCaptureJs, newId as newIdJs } from './fixtures/capture.mjs';

export const makeCapture = makeCaptureJs as (options?: { id?: string; startedAt?: number; bytes?: number; name?: string }) => Capture;
export const newId = newIdJs as (now?: number) => string;

export interface StoreSettings {
  limit: number;
  /** Seconds; only for drivers with `supportsTtl`. */
  ttl?: number;
}

export interface DriverUnderTest {
  name: string;
  /** The `probe.config.mjs` text selecting this driver with these settings. */
  config(settings: StoreSettings): string;
  /** Writes garbage where the driver keeps this capture (`capture`) or its index row (`row`). */
  corrupt(app: TestApp, id: string, what: 'capture' | 'row'): Promise<void>;
  supportsTtl: boolean;
  /** A capture whose text is corrupt is left out of the index too (every listed id can be found). */
  listsOnlyReadable?: boolean;
  /** Open stores as an app's runtime does (the file driver then writes on its worker thread). */
  writeThread?: boolean;
}

const WRITER = path.join(__dirname, 'fixtures', 'writer.mjs');

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const key of ['PROBE_ROOT', 'PROBE_CONFIG', 'PROBE_STORAGE', 'PROBE_ENABLED', 'REDIS_URL']) delete env[key];
  return env;
}

/** The store an app in `app.dir` would get (`writeThread`: as its runtime gets it). */
export function openStore(app: TestApp, options: { writeThread?: boolean } = {}): Store {
  const { store } = openStoreOf({ cwd: app.dir, env: cleanEnv(), logger: createLogger(() => undefined), recording: options.writeThread });
  if (!store) throw new Error('the test app has Probe disabled');
  return store;
}

interface Written {
  id: string;
  started_at: number;
}

/** Runs `processes` writer processes at once, each putting `each` captures; returns every capture put. */
export async function runWriters(app: TestApp, processes: number, each: number, options: { writeThread?: boolean } = {}): Promise<Written[]> {
  const env = { ...cleanEnv(), ...(options.writeThread ? { PROBE_TEST_WRITE_THREAD: '1' } : {}) };
  const runs = Array.from({ length: processes }, () => runChild(process.execPath, [WRITER, REPO_ROOT, app.dir, String(each)], { cwd: app.dir, env }));
  const results = await Promise.all(runs);
  const written: Written[] = [];
  for (const result of results) {
    assert.equal(result.code, 0, `writer failed: ${result.stderr}`);
    for (const line of result.stdout.split('\n').filter(Boolean)) written.push(JSON.parse(line) as Written);
  }
  return written;
}

/** Newest first: started_at descending, then id descending. */
export function newestFirst(a: { started_at: number; id: string }, b: { started_at: number; id: string }): number {
  return b.started_at - a.started_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

async function assertConsistent(store: Store, rows: IndexRow[]): Promise<void> {
  for (const row of rows) {
    const capture = await store.find(row.id);
    assert.ok(capture, `index row ${row.id} points at a missing capture`);
    assert.equal(capture.id, row.id);
  }
  assert.equal(new Set(rows.map((row) => row.id)).size, rows.length, 'index has duplicate ids');
}

export function runStoreContract(driver: DriverUnderTest): void {
  describe(`store contract: ${driver.name}`, () => {
    const stores: Store[] = [];
    const setup = (settings: StoreSettings = { limit: 200 }) => {
      const app = new TestApp({ 'probe.config.mjs': driver.config(settings) });
      const store = openStore(app, { writeThread: driver.writeThread });
      stores.push(store);
      return { app, store };
    };
    after(async () => {
      for (const store of stores) await store.close?.();
    });

    test('put, find and index round-trip a capture', async () => {
      const { store } = setup();
      const capture = makeCapture({ bytes: 20_000 });
      await store.put(capture);
      assert.deepEqual(await store.find(capture.id), capture);
      assert.deepEqual(await store.index(), [indexRowOf(capture)]);
    });

    // Issue 28: the builder stores a JSON body once, as its text; every driver's find() gives the cards back.
    test('a JSON body stored once is found as cards and raw (SPEC 2.1)', async () => {
      const { store } = setup();
      const capture = makeCapture({ bytes: 6_000 });
      const rows = capture.sections.http!;
      rows[0] = { ...rows[0]!, response_capture: { capture: 'JsonCapture', raw: '{\n  "id": 1, "n": -0\n}', cards_from_raw: true } };
      await store.put(capture);
      const found = await store.find(capture.id);
      assert.deepEqual(found?.sections.http![0]!.response_capture, { capture: 'JsonCapture', cards: { id: 1, n: 0 }, raw: '{"id":1,"n":0}' });
      assert.deepEqual(found?.sections.http![1], rows[1]);
    });

    // A long-lived process's command capture is stored while it runs, then again when it ends (SPEC 7).
    test('a put of an id already stored replaces it: one index row, the latest text', async () => {
      const { store } = setup({ limit: 3 });
      const capture = makeCapture();
      await store.put({ ...capture, status: 'running' });
      await store.put(makeCapture());
      await store.put({ ...capture, status: '0' });
      assert.deepEqual((await store.find(capture.id))?.status, '0');
      const rows = await store.index();
      assert.equal(rows.filter((row) => row.id === capture.id).length, 1);
      assert.equal(rows.find((row) => row.id === capture.id)?.status, '0');
      assert.equal(rows.length, 2);
    });

    test('find of an unknown or hostile id is null', async () => {
      const { store } = setup();
      await store.put(makeCapture());
      for (const id of [
        newId(),
        '../x',
        '../../etc/passwd',
        '/etc/passwd',
        'abc\0defgh',
        '..',
        '',
        'a'.repeat(65),
        'short',
        'x/../../y1234',
        '%2e%2e%2fabcdef',
        'index',
        'row:abcdefgh*',
      ]) {
        assert.equal(await store.find(id), null, `find(${JSON.stringify(id)})`);
      }
      for (const id of [undefined, null, 42, {}]) assert.equal(await store.find(id as unknown as string), null);
    });

    test('a put with a hostile id is refused and stores nothing', async () => {
      const { store } = setup();
      for (const id of ['../escape-1234', '/tmp/escape-1234', 'abc\0defgh']) {
        await assert.rejects(store.put(makeCapture({ id })));
      }
      assert.deepEqual(await store.index(), []);
    });

    test('index is newest first: started_at descending, then id descending', async () => {
      const { store } = setup();
      const base = Date.now() / 1000;
      const captures = [
        makeCapture({ id: newId(1_000), startedAt: base + 3 }),
        makeCapture({ id: newId(2_000), startedAt: base + 1 }),
        makeCapture({ id: 'aaaaaaaaaaaa', startedAt: base + 2 }),
        makeCapture({ id: 'zzzzzzzzzzzz', startedAt: base + 2 }),
        makeCapture({ id: newId(3_000), startedAt: base }),
      ];
      for (const capture of captures) await store.put(capture);
      const expected = [...captures].sort(newestFirst).map((capture) => capture.id);
      assert.deepEqual(
        (await store.index()).map((row) => row.id),
        expected,
      );
      assert.deepEqual(expected.slice(1, 3), ['zzzzzzzzzzzz', 'aaaaaaaaaaaa']);
    });

    test('put keeps only the newest `limit` captures', async () => {
      const { store } = setup({ limit: 5 });
      const base = Date.now() / 1000;
      const captures = Array.from({ length: 9 }, (_, i) => makeCapture({ startedAt: base + ((i * 7) % 9) }));
      for (const capture of captures) await store.put(capture);
      const kept = [...captures].sort(newestFirst).slice(0, 5);
      assert.deepEqual(
        (await store.index()).map((row) => row.id),
        kept.map((capture) => capture.id),
      );
      for (const capture of captures) {
        const found = await store.find(capture.id);
        assert.equal(found !== null, kept.includes(capture), `find(${capture.id})`);
      }
    });

    test('a burst of puts never shows more than `limit` and settles to exactly the newest `limit`', async () => {
      const { store } = setup({ limit: 5 });
      const base = Date.now() / 1000;
      const captures = Array.from({ length: 30 }, (_, i) => makeCapture({ startedAt: base + ((i * 11) % 30) }));
      const puts = captures.map((capture) => store.put(capture));
      // Mid-burst: rows over the limit may still be on their way out, but never shown.
      assert.ok((await store.index()).length <= 5);
      await Promise.all(puts);
      const kept = [...captures].sort(newestFirst).slice(0, 5);
      assert.deepEqual(
        (await store.index()).map((row) => row.id),
        kept.map((capture) => capture.id),
      );
      for (const capture of captures) assert.equal((await store.find(capture.id)) !== null, kept.includes(capture), `find(${capture.id})`);
    });

    test('clear removes everything; put works afterwards', async () => {
      const { store } = setup();
      const captures = [makeCapture(), makeCapture(), makeCapture()];
      for (const capture of captures) await store.put(capture);
      await store.clear();
      assert.deepEqual(await store.index(), []);
      for (const capture of captures) assert.equal(await store.find(capture.id), null);
      await store.clear(); // clearing an empty store is fine
      const next = makeCapture();
      await store.put(next);
      assert.deepEqual(
        (await store.index()).map((row) => row.id),
        [next.id],
      );
    });

    test('a corrupt entry is skipped, never fatal', async () => {
      const { app, store } = setup();
      const base = Date.now() / 1000;
      const [a, b, c] = [0, 1, 2].map((i) => makeCapture({ startedAt: base + i })) as [Capture, Capture, Capture];
      for (const capture of [a, b, c]) await store.put(capture);
      await driver.corrupt(app, b.id, 'capture');
      assert.equal(await store.find(b.id), null);
      if (driver.listsOnlyReadable) {
        assert.ok(!(await store.index()).some((row) => row.id === b.id), 'a capture that cannot be read is not listed');
        await assertConsistent(store, await store.index());
      }
      await driver.corrupt(app, c.id, 'row');
      const ids = (await store.index()).map((row) => row.id);
      assert.ok(ids.includes(a.id), 'the intact capture is still listed');
      for (const row of await store.index()) assert.equal(typeof row.name, 'string');
      assert.deepEqual(await store.find(a.id), a);
      const d = makeCapture({ startedAt: base + 3 });
      await store.put(d);
      assert.equal((await store.index())[0]?.id, d.id);
      assert.deepEqual(await store.find(d.id), d);
    });

    if (driver.supportsTtl) {
      test('captures expire after ttl', async () => {
        const { store } = setup({ limit: 200, ttl: 1 });
        const capture = makeCapture();
        await store.put(capture);
        assert.ok(await store.find(capture.id));
        await eventually(async () => (await store.find(capture.id)) === null);
        assert.deepEqual(await store.index(), []);
      });
    }

    test('limit is exact with a dozen processes writing at once', async () => {
      const { app, store } = setup({ limit: 20 });
      const written = await runWriters(app, 12, 15, { writeThread: driver.writeThread });
      assert.equal(written.length, 180);
      const rows = await store.index();
      assert.equal(rows.length, 20);
      assert.deepEqual(
        rows.map((row) => row.id),
        [...written]
          .sort(newestFirst)
          .slice(0, 20)
          .map((w) => w.id),
        'the 20 newest captures of all processes remain, newest first',
      );
      await assertConsistent(store, rows);
    });

    test('clear while another process writes leaves a consistent store', async () => {
      const { app, store } = setup({ limit: 20 });
      const writers = runWriters(app, 2, 60, { writeThread: driver.writeThread });
      let clears = 0;
      let done = false;
      void writers.finally(() => (done = true)).catch(() => undefined);
      while (!done || clears === 0) {
        await store.clear();
        clears++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await writers;
      const rows = await store.index();
      assert.ok(rows.length <= 20, `${rows.length} rows`);
      await assertConsistent(store, rows);
      assert.deepEqual(rows, [...rows].sort(newestFirst));
      await store.clear();
      assert.deepEqual(await store.index(), []);
    });
  });
}
