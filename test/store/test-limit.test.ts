// storage.test_limit: test captures are counted apart from the others, so one run of a suite is kept whole while
// storage.limit still bounds what a long-lived server writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import { indexRowOf } from '../../src/capture/indexRow';
import type { Capture } from '../../src/capture/types';
import { makeCapture } from './contract';

function tempFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-test-limit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'captures');
}

const ofType = (type: Capture['type'], startedAt: number): Capture => ({ ...makeCapture({ startedAt, bytes: 200 }), type }) as Capture;

test('the newest `limit` captures of other types and the newest `testLimit` tests are kept, each counted apart', async (t) => {
  const dir = tempFolder(t);
  const base = Date.now() / 1000;
  const written: Capture[] = [];
  // Interleaved: a server's requests while tests run, then more requests after the run.
  for (let i = 0; i < 12; i++) written.push(ofType(i % 3 === 0 ? 'request' : 'test', base + i));
  for (let i = 12; i < 20; i++) written.push(ofType('request', base + i));
  const store = new FileStore({ path: dir, limit: 3, testLimit: 6 });
  for (const capture of written) await store.put(capture);

  const newestFirst = [...written].reverse();
  const expected = [...newestFirst.filter((c) => c.type === 'request').slice(0, 3), ...newestFirst.filter((c) => c.type === 'test').slice(0, 6)].sort(
    (a, b) => b.started_at - a.started_at,
  );
  assert.deepEqual(await store.index(), expected.map(indexRowOf));
  assert.equal(readdirSync(dir).filter((name) => name.endsWith('.json')).length, 9, 'the trim removed the rest');

  // Another process's store on the same folder (it knows no file's type yet) reads and trims the same way.
  const other = new FileStore({ path: dir, limit: 3, testLimit: 6 });
  assert.deepEqual(await other.index(), expected.map(indexRowOf));
  const later = ofType('request', base + 30);
  await other.put(later);
  const rows = await other.index();
  assert.equal(rows.filter((row) => row.type === 'test').length, 6, 'the tests stay');
  assert.deepEqual(
    rows.filter((row) => row.type === 'request').map((row) => row.id),
    [
      later.id,
      ...expected
        .filter((c) => c.type === 'request')
        .slice(0, 2)
        .map((c) => c.id),
    ],
  );
});

test('without testLimit, tests count with every other capture (a store made in code, a custom driver)', async (t) => {
  const dir = tempFolder(t);
  const base = Date.now() / 1000;
  const store = new FileStore({ path: dir, limit: 4 });
  const written = Array.from({ length: 10 }, (_, i) => ofType(i % 2 ? 'test' : 'request', base + i));
  for (const capture of written) await store.put(capture);
  assert.deepEqual(await store.index(), [...written].reverse().slice(0, 4).map(indexRowOf));
});
