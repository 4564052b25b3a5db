// The file store reuses the files its trim drops (SpareFiles): a busy store must stop allocating inodes once
// it holds `limit` captures, readers must never take a reused file for the capture it used to hold, and a
// clear must leave no retired capture text behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import { SPARE_PREFIX } from '../../src/store/SpareFiles';
import { makeCapture } from './contract';

function tempFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-spares-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'captures');
}

const fileOf = (dir: string, id: string) => readdirSync(dir).find((name) => name.endsWith(`-${id}.json`))!;
const inodes = (dir: string) => new Set(readdirSync(dir).map((name) => statSync(path.join(dir, name)).ino));

test('past the limit, new captures are written into the files the trim retired', async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 4 });
  const base = Date.now() / 1000;
  for (let i = 0; i < 12; i++) await store.put(makeCapture({ startedAt: base + i, bytes: 3_000 }));
  const known = inodes(dir);
  const spares = readdirSync(dir).filter((name) => name.startsWith(SPARE_PREFIX));
  assert.ok(spares.length > 0, 'the trim keeps spares');
  for (let i = 12; i < 24; i++) await store.put(makeCapture({ startedAt: base + i, bytes: 1_000 }));
  const after = inodes(dir);
  const fresh = [...after].filter((ino) => !known.has(ino));
  assert.deepEqual(fresh, [], 'no new inode once spares exist');
  const rows = await store.index();
  assert.equal(rows.length, 4);
  // A reused file is cut to its new length: every capture parses and is the one its name says.
  for (const row of rows) {
    const text = readFileSync(path.join(dir, fileOf(dir, row.id)), 'utf8');
    assert.equal(JSON.parse(text).capture.id, row.id);
    assert.equal((await store.find(row.id))?.id, row.id);
  }
});

test('a reader that reaches a reused file reads it as gone, never as another capture', async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 5 });
  const base = Date.now() / 1000;
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const capture = makeCapture({ startedAt: base + i });
    ids.push(capture.id);
    await store.put(capture);
  }
  // What a reader holding the old name sees when the file under it now holds another capture.
  const victim = ids[0]!;
  writeFileSync(path.join(dir, fileOf(dir, victim)), readFileSync(path.join(dir, fileOf(dir, ids[1]!))));
  assert.equal(await store.find(victim), null);
  const listed = (await store.index()).map((r) => r.id);
  assert.equal(listed.filter((id) => id === ids[1]).length, 1, 'the other capture is listed once');
  assert.ok(!listed.includes(victim));
});

test('clear removes the spares with the captures: no retired capture text stays on disk', async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 3 });
  const base = Date.now() / 1000;
  for (let i = 0; i < 12; i++) await store.put(makeCapture({ startedAt: base + i, name: `secret-${i}` }));
  assert.ok(readdirSync(dir).some((name) => name.startsWith(SPARE_PREFIX)));
  await store.clear();
  assert.deepEqual(readdirSync(dir), []);
  // The store keeps working after its spares are gone.
  await store.put(makeCapture({ startedAt: base + 20 }));
  assert.equal((await store.index()).length, 1);
});

test('another store on the same folder takes up the spares the first one left', async (t) => {
  const dir = tempFolder(t);
  const first = new FileStore({ path: dir, limit: 4 });
  const base = Date.now() / 1000;
  for (let i = 0; i < 10; i++) await first.put(makeCapture({ startedAt: base + i }));
  const spares = readdirSync(dir).filter((name) => name.startsWith(SPARE_PREFIX));
  assert.ok(spares.length > 0);
  // A second process's store: it learns the spares from its first trim's listing and writes into them.
  const second = new FileStore({ path: dir, limit: 4 });
  await second.put(makeCapture({ startedAt: base + 100 }));
  const known = inodes(dir);
  for (let i = 0; i < 6; i++) await second.put(makeCapture({ startedAt: base + 101 + i }));
  assert.deepEqual(
    [...inodes(dir)].filter((ino) => !known.has(ino)),
    [],
  );
  assert.equal((await second.index()).length, 4);
});
