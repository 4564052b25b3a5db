// A capture's first file is created under its final name (O_EXCL), with no temp file and no rename: only a
// file that replaces another goes through a temp file. These tests hold what makes that safe: a file whose
// write is half done is never listed, found or tailed as a capture (and is once its write ends), a capture
// put again under the same name is replaced whole, and whatever was planted under a capture's name (a link,
// a FIFO) is never written through or opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import { NewCaptures } from '../../src/store/NewCaptures';
import { captureFileText } from '../../src/store/captureFile';
import { captureNameOf, orderKeyOf } from '../../src/store/orderKey';
import { indexRowOf } from '../../src/capture/indexRow';
import type { Capture } from '../../src/capture/types';
import type { Store } from '../../src/capture/Store';
import { makeCapture } from './contract';

const LIMIT = { timeout: 60_000 };

function tempFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-first-write-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'captures');
}

const nameOf = (capture: Capture) => captureNameOf(orderKeyOf(capture.started_at), capture.id);
const fileTextOf = (capture: Capture) => captureFileText(JSON.stringify(indexRowOf(capture)), JSON.stringify(capture), capture.id);

test('a put writes its capture straight under its name: no temp file is made, and the file is whole', LIMIT, async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 10 });
  const capture = makeCapture({ bytes: 20_000 });
  await store.put(capture);
  assert.deepEqual(readdirSync(dir), [nameOf(capture)]);
  assert.equal(readFileSync(path.join(dir, nameOf(capture)), 'utf8'), fileTextOf(capture));
  assert.deepEqual(await store.find(capture.id), capture);
});

test('a capture file whose write is half done is not listed, found or tailed, and is once its write ends', LIMIT, async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 10 });
  const base = Date.now() / 1000;
  const whole = makeCapture({ startedAt: base });
  await store.put(whole);
  const tailed: string[] = [];
  // The store without its folder watch: the checks below run when the test says, never one beside another.
  const unwatched: Store = {
    put: (c) => store.put(c),
    find: (id) => store.find(id),
    index: () => store.index(),
    clear: () => store.clear(),
    ids: () => store.ids(),
  };
  const tail = new NewCaptures(unwatched, {
    intervalMs: 3_600_000,
    onCapture: (capture) => tailed.push(capture.id),
    onError: (error) => assert.fail(String(error)),
  });
  await tail.start();
  t.after(() => tail.stop());

  const writing = makeCapture({ startedAt: base + 1, bytes: 8_000 });
  const file = path.join(dir, nameOf(writing));
  const text = fileTextOf(writing);
  // Cut in the row, after the row, in the capture, and one byte short of the end: each as a write stopped there.
  const rowEnd = text.indexOf(',"capture":');
  for (const cut of [0, 10, rowEnd, rowEnd + 200, Math.floor(text.length / 2), text.length - 1]) {
    writeFileSync(file, text.slice(0, cut));
    assert.deepEqual(
      (await store.index()).map((row) => row.id),
      [whole.id],
      `cut at ${cut} of ${text.length}`,
    );
    assert.equal(await store.find(writing.id), null, `cut at ${cut}`);
    await tail.check();
    assert.deepEqual(tailed, [], `cut at ${cut}: not tailed yet`);
  }
  writeFileSync(file, text);
  assert.deepEqual(await store.index(), [indexRowOf(writing), indexRowOf(whole)]);
  assert.deepEqual(await store.find(writing.id), writing);
  await tail.check();
  assert.deepEqual(tailed, [writing.id], 'tailed once its write ended');
  await tail.check();
  assert.deepEqual(tailed, [writing.id], 'and only once');
});

test('a capture put again under the same name replaces its file whole, through a temp file that does not stay', LIMIT, async (t) => {
  const dir = tempFolder(t);
  const store = new FileStore({ path: dir, limit: 10 });
  const first = makeCapture({ name: 'first version', bytes: 20_000 });
  await store.put(first);
  const again = { ...first, name: 'second version', label: 'x'.repeat(5_000) } as Capture;
  await store.put(again);
  assert.deepEqual(readdirSync(dir), [nameOf(first)]);
  assert.equal(readFileSync(path.join(dir, nameOf(first)), 'utf8'), fileTextOf(again));
  assert.deepEqual(await store.find(first.id), again);
  assert.deepEqual(await store.index(), [indexRowOf(again)]);
  // A half-written first file (its writer died) is replaced whole by the next put of that capture.
  const cut = makeCapture({ bytes: 4_000 });
  writeFileSync(path.join(dir, nameOf(cut)), fileTextOf(cut).slice(0, 300));
  store.putSync(cut);
  assert.deepEqual(await store.find(cut.id), cut);
  assert.deepEqual(readdirSync(dir).sort(), [nameOf(first), nameOf(cut)].sort());
});

test("a link or a FIFO planted under a capture's own name is never written through or opened", LIMIT, async (t) => {
  const dir = tempFolder(t);
  mkdirSync(dir, { recursive: true });
  const victim = path.join(path.dirname(dir), 'victim.txt');
  writeFileSync(victim, 'precious\n');
  const linked = makeCapture();
  symlinkSync(victim, path.join(dir, nameOf(linked)));
  const store = new FileStore({ path: dir, limit: 10 });
  await store.put(linked);
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n', 'the link target is untouched');
  assert.deepEqual(await store.find(linked.id), linked, 'the capture replaced the link, as a rename does');
  if (process.platform !== 'win32') {
    const fifo = makeCapture();
    execFileSync('mkfifo', [path.join(dir, nameOf(fifo))]);
    // An open for writing of a FIFO with no reader would block this thread: the put must return.
    await store.put(fifo);
    assert.deepEqual(await store.find(fifo.id), fifo);
  }
});
