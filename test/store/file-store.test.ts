// The file store (FileStore.ts, captureFile.ts) keeps each capture in one file, its index row first, so that index() reads
// the head of each file. These tests pin the framing (rows with braces, quotes, escapes and multi-byte text
// in strings; rows longer than the head read), the one-file-per-put layout, and the cleanup of files left
// by the earlier two-file layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import { captureFileText, captureOfText, rowOfHead } from '../../src/store/captureFile';
import { indexRowOf } from '../../src/capture/indexRow';
import type { Capture } from '../../src/capture/types';
import { makeCapture } from './contract';

function tempFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-capture-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'captures');
}

const HOSTILE_NAMES = [
  'plain',
  'braces } ] { [ inside',
  'quote " and backslash \\ and \\" both',
  'end with backslash \\',
  'ünïcödé 🚀 {"row":1}',
  '},"capture":{"id":"x"}',
  '\u0000\u001f\u2028 controls',
];

test('the index row is read back from any prefix that holds it, whatever its strings contain', () => {
  for (const name of HOSTILE_NAMES) {
    const capture = { ...makeCapture({ name }), label: name, tags: [name, '}'] } as Capture;
    const row = indexRowOf(capture);
    const text = captureFileText(JSON.stringify(row), JSON.stringify(capture), capture.id);
    const bytes = Buffer.from(text);
    assert.deepEqual(JSON.parse(text), { row, capture, end: capture.id }, 'one JSON document');
    assert.deepEqual(captureOfText(text), capture);
    assert.deepEqual(rowOfHead(bytes, true), row, name);
    const rowEnd = Buffer.byteLength(`{"row":${JSON.stringify(row)}`);
    assert.deepEqual(rowOfHead(bytes.subarray(0, rowEnd), false), row, `${name}: the head ends right after the row`);
    for (const cut of [0, 3, 7, 8, rowEnd - 1])
      assert.equal(rowOfHead(bytes.subarray(0, cut), false), undefined, `${name}: a head of ${cut} bytes asks for more`);
    assert.equal(rowOfHead(bytes.subarray(0, rowEnd - 1), true), null, `${name}: a file cut inside its row is corrupt`);
  }
});

test('bytes that are not a capture file give no row and no capture', () => {
  for (const text of ['', '{', '{"id":"abcdefgh"}', '[1,2]', '{"row":}', '{"row":{"id":"a"', '\u00ff\u00fe binary', '{"row":5,"capture":5}']) {
    assert.equal(rowOfHead(Buffer.from(text), true), null, JSON.stringify(text));
    assert.equal(captureOfText(text), null, JSON.stringify(text));
  }
  // A row that parses in a file that does not: listed by its row, never found (find reads the capture).
  assert.deepEqual(rowOfHead(Buffer.from('{"row":{"id":"abcdefgh"}}}}}'), true), { id: 'abcdefgh' });
  assert.equal(captureOfText('{"row":{"id":"abcdefgh"}}}}}'), null);
  assert.equal(captureOfText('{"row":{},"capture":[1]}'), null);
});

test('a put writes one file, and a row longer than the head read is still listed', async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 5 });
  const base = Date.now() / 1000;
  const long = { ...makeCapture({ startedAt: base + 1 }), label: 'x'.repeat(10_000), tags: ['ü'.repeat(3_000)] } as Capture;
  const short = makeCapture({ startedAt: base });
  await store.put(short);
  await store.put(long);
  assert.deepEqual(readdirSync(dir).sort(), [short, long].map((c) => `${String(Math.round(c.started_at * 1e6)).padStart(17, '0')}-${c.id}.json`).sort());
  assert.deepEqual(await store.index(), [indexRowOf(long), indexRowOf(short)]);
  assert.deepEqual(await store.find(long.id), long);
  const file = readdirSync(dir).find((name) => name.endsWith(`-${long.id}.json`))!;
  assert.deepEqual(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), { row: indexRowOf(long), capture: long, end: long.id });
});

test('a capture put again with another start time is listed and found once, the newest file standing', async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 5 });
  const base = Date.now() / 1000;
  const first = makeCapture({ startedAt: base });
  const again = { ...first, started_at: base + 5, name: 'again' } as Capture;
  await store.put(first);
  await store.put(again);
  assert.deepEqual(await store.index(), [indexRowOf(again)]);
  assert.deepEqual(await store.find(first.id), again);
  assert.equal(readdirSync(dir).filter((name) => name.endsWith('.json')).length, 1, 'the trim dropped the older file');
});

test("files that are not the store's (a user's notes or settings.json in a shared folder) are never read, trimmed or cleared", async (t) => {
  const dir = tempFolder(t);
  mkdirSync(dir, { recursive: true });
  const strangers = ['notes.txt', 'settings.json', `${makeCapture().id}.json`];
  for (const name of strangers) writeFileSync(path.join(dir, name), '{}');
  const past = new Date(Date.now() - 120_000);
  for (const name of strangers) utimesSync(path.join(dir, name), past, past);
  const store = new FileStore({ path: dir, limit: 2 });
  assert.deepEqual(await store.index(), []);
  const base = Date.now() / 1000;
  for (let i = 0; i < 4; i++) await store.put(makeCapture({ startedAt: base + i }));
  assert.equal((await store.index()).length, 2);
  await store.clear();
  assert.deepEqual(readdirSync(dir).sort(), [...strangers].sort());
});

test('a caller awaiting each put is never held by a timer: puts of one turn share a trim, nothing waits longer', async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 3 });
  // With timers frozen, a trim put off by setTimeout would never run and the await below would never end.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const base = Date.now() / 1000;
  for (let i = 0; i < 10; i++) {
    await store.put(makeCapture({ startedAt: base + i }));
    assert.ok(readdirSync(dir).filter((name) => name.endsWith('.json')).length <= 3, 'each put resolves after its trim');
  }
  assert.equal((await store.index()).length, 3);
});
