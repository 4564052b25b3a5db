// Under descriptor pressure (a burst of sockets takes every descriptor the process may hold), the file store's write
// thread cannot start, or stops: captures are written on the app thread meanwhile, and once descriptors are free
// again a new thread takes the writes. A transient fault is not made permanent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { REPO_ROOT, eventually } from '../helpers/app';
import { makeCapture } from './contract';

const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

/** Opens /dev/null until the process may open no more (EMFILE); the descriptors, to close. */
function takeEveryDescriptor(): number[] {
  const held: number[] = [];
  for (;;) {
    try {
      held.push(openSync('/dev/null', 'r'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EMFILE' || (error as NodeJS.ErrnoException).code === 'ENFILE') return held;
      throw error;
    }
  }
}

test('EMFILE while the write thread starts: written on the app thread meanwhile, a thread again once descriptors are back', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-threaded-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (line: string) => lines.push(line),
    warnOnce: (_key: string, line: string) => lines.push(line),
  };
  const store = new ThreadedStore(new FileStore({ path: path.join(dir, 'captures'), limit: 1000 }), logger as never, SCRIPT);
  t.after(() => store.close());
  const base = Date.now() / 1000;
  let n = 0;
  const next = () => makeCapture({ startedAt: base + n++ });
  for (let i = 0; i < 8; i++) await store.put(next());
  const held = takeEveryDescriptor();
  try {
    // The first put past the first few starts the thread: no descriptor is left for it.
    await Promise.allSettled(Array.from({ length: 20 }, () => store.put(next())));
    assert.equal(store.threaded, false);
  } finally {
    for (const fd of held) closeSync(fd);
  }
  // Descriptors are back: a later put finds a thread again (after its retry delay; the limit only ends a wait that
  // would never succeed).
  await eventually(async () => {
    await store.put(next());
    return store.threaded;
  }, 60_000);
});
