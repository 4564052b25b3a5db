/**
 * The store's thread (started by ThreadedStore): opens the app's built-in driver (file or Redis) with the
 * app's settings, builds the captures of the units the app's thread hands over (decoding, masking,
 * buildCapture, serializing), writes them and the captures the app's thread serialized itself (file), and runs
 * the trims, so neither the build nor a slow or busy disk holds the app's event loop. It loads the app's config
 * itself (a resolved config holds classes, which cannot cross threads), from the same root, file, environment
 * and overrides. Nothing here touches the app; a fault is sent back with its put.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ResolvedConfig } from '../config/types';
import type { UnitInput } from '../builder/input';
import type { Capture } from '../capture/types';
import type { BatchDone, ThreadDriver, ThreadMessage } from './ThreadedStore';
import type { BuildSource } from './buildSource';
import { FileStore, preparePut, type PreparedPut } from './FileStore';
import { buildCapture } from '../builder/buildCapture';
import { RowCache } from '../builder/RowCache';
import { loadConfig } from '../config/load';
import { setUserPartsSource } from '../config/UserPartsRunner';
import { warmUserParts } from '../config/guardUserParts';
import { unpackUnit } from './unitMessage';
import { KeptParts, type PostedUnit } from './unitParts';
import { sayThreadMemory } from './threadMemory';
import { BodyRelease } from './BodyRelease';
import { HeapCollector } from './HeapCollector';
import { threadWork } from '../util/threadWork';

const {
  store: driver,
  build,
  finished,
  memory,
  heapStep,
} = workerData as {
  store: ThreadDriver;
  build: BuildSource | null;
  /**
   * Shared with the app's thread: [0] units finished (written or failed), which its exit path waits on; [1] those of
   * them that failed, which it counts lost when their answer cannot reach it any more (process.exit()).
   */
  finished: Int32Array;
  /** What this thread holds, said after each batch (threadMemory.ts). */
  memory: Float64Array;
  /** HeapCollector's step, when not its default (tests). */
  heapStep: number | undefined;
};
/**
 * Trims at most twice a second here: each one lists and sorts the whole folder, and at a few hundred
 * captures a second a trim per batch listed it far more often than it found files to drop. The folder holds
 * at most half a second of captures over the limit, which readers never show (index() cuts at the limit).
 * The thread's puts overlap, so none waits on another's trim (FileStore's default of 0 is for a caller
 * awaiting each put).
 */
const TRIM_EVERY_MS = 500;
const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);

/**
 * The driver's two writes: a capture the app's thread serialized (file only: with Redis that thread writes those
 * itself), and a built capture. `syncWrites`: the file driver's writes are done when the call returns (only the
 * shared trim is left), a Redis write when its promise settles: the exit path counts a unit finished then.
 */
interface Writer {
  putPrepared(prepared: PreparedPut): Promise<void>;
  /** With `cached`, the rows the RowCache built keep their text (a unit stored in parts); else serialised whole. */
  putBuilt(capture: Capture, cached: RowCache | undefined): Promise<void>;
  syncWrites: boolean;
}

/**
 * The rows of the calls this thread keeps (units in parts), built and serialised once for all their versions:
 * weakly held, they go with the calls KeptParts drops with a unit's last version. A unit handed whole (a request,
 * a job) is stored once: its rows skip the cache, whose two weak map entries per row are work for this thread's
 * collector and nothing else (a job worker's rows are every call it makes).
 */
const rows = new RowCache();
const rowsOf = (posted: PostedUnit): RowCache | undefined => (posted.parts ? rows : undefined);

function open(): Writer {
  if (driver.driver === 'file') {
    const store = new FileStore({
      path: driver.path,
      limit: driver.limit,
      testLimit: driver.testLimit,
      within: driver.within,
      pin: driver.pin,
      trimEveryMs: TRIM_EVERY_MS,
    });
    return {
      putPrepared: (prepared) => store.putPrepared(prepared),
      putBuilt: (capture, cached) => store.putPrepared(preparePut(capture, cached)),
      syncWrites: true,
    };
  }
  // Loaded only here: the thread of an app on the file store never loads the Redis driver.
  const { RedisStore } = require('./RedisStore') as typeof import('./RedisStore');
  const store = new RedisStore({ url: driver.url, prefix: driver.prefix, ttl: driver.ttl, limit: driver.limit });
  return {
    putPrepared: () => Promise.reject(new Error('the Redis store takes built captures')),
    putBuilt: (capture, cached) => store.put(capture, cached),
    syncWrites: false,
  };
}
const writer = open();

let config: ResolvedConfig | null = null;
if (build) {
  try {
    // Not tried again: the app's thread tried the file before it started this thread.
    // The user's masks and name patterns run on a thread of their own here too (config/UserPartsRunner.ts).
    setUserPartsSource(build);
    config = loadConfig({ cwd: build.cwd, env: build.env, overrides: build.overrides, trial: false });
    warmUserParts();
    post({ ready: true });
  } catch (error) {
    post({ ready: false, message: String((error as Error)?.message ?? error) });
  }
}

type Put = [number, PreparedPut | PostedUnit];

/** Collects this thread's heap between batches once its builds have grown it by a step (HeapCollector). */
const heap = new HeapCollector(heapStep);

/** The calls kept of units handed in parts (the process's command capture while it runs), until their last version. */
const kept = new KeptParts();

/**
 * Units built at once for a driver whose writes are async (Redis): each built capture and its serialized text
 * live until Redis answers. Building a whole batch (up to 64 units) before the first answer held them all on
 * this thread's heap at once: with 50 KB bodies, hundreds of MB of process RSS. A unit is built when a put
 * settles, so at most this many are held; the file driver writes each synchronously as it is built.
 */
const MAX_ASYNC_PUTS = 4;
let running = 0;
const waiting: Array<() => void> = [];

async function inSlot(work: () => Promise<void>): Promise<void> {
  if (running >= MAX_ASYNC_PUTS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

const unitFinished = () => {
  Atomics.add(finished, 0, 1);
  Atomics.notify(finished, 0);
};

port.on('message', (message: Array<[number, PreparedPut]> | { units: Array<[number, PostedUnit]>; forget?: string[] }) => {
  const units = !Array.isArray(message);
  const batch: Put[] = units ? message.units : message;
  // Joined in order as the batch arrives (a later part of a unit needs the earlier ones), built later for Redis.
  const whole = new Map<number, UnitInput | Error>();
  const bodies = new BodyRelease();
  if (units) {
    for (const [seq, put] of message.units) {
      bodies.hold(put);
      try {
        whole.set(seq, kept.join(unpackUnit(put as UnitInput)));
      } catch (error) {
        whole.set(seq, error instanceof Error ? error : new Error(String(error)));
      }
    }
    // Units whose last version the app's thread will not send (dropped, or built there): after this batch's.
    for (const id of message.forget ?? []) kept.forget(id);
  }
  const unitOf = (seq: number): UnitInput => {
    const unit = whole.get(seq)!;
    whole.delete(seq);
    if (unit instanceof Error) throw unit;
    return unit;
  };
  // The capture holds strings only: the unit's bodies go as soon as it is built (BodyRelease).
  const built = (seq: number, posted: PostedUnit): Capture => {
    try {
      return buildCapture(unitOf(seq), config!, rowsOf(posted));
    } finally {
      bodies.done(posted);
    }
  };
  const outcome: BatchDone = { done: [], failed: [] };
  // One answer per batch, once its writes (and, for files, the shared trim) have settled.
  const puts = batch.map((entry) => {
    const [seq, put] = entry;
    let written: Promise<void>;
    try {
      if (units && !writer.syncWrites) {
        written = inSlot(() => {
          // Built now; the batch no longer holds the unit's bodies once its capture is written.
          entry[1] = null as never;
          return writer.putBuilt(built(seq, put as PostedUnit), rowsOf(put as PostedUnit));
        });
      } else {
        written = units ? writer.putBuilt(built(seq, put as PostedUnit), rowsOf(put as PostedUnit)) : writer.putPrepared(put as PreparedPut);
      }
    } catch (error) {
      written = Promise.reject(error);
    }
    if (units) {
      // Counted failed before finished: the exit path reads both once every unit is finished.
      const failed = (error: unknown) => {
        Atomics.add(finished, 1, 1);
        throw error;
      };
      if (writer.syncWrites) {
        unitFinished();
        written = written.catch(failed);
      } else written = written.catch(failed).finally(unitFinished);
    }
    return written.then(
      () => void outcome.done.push(seq),
      (error: unknown) => {
        // A StoreError keeps its code; a file system error (ENOSPC, EACCES...) becomes PROBE_STORE_WRITE.
        const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
        const storeCode = typeof code === 'string' && code.startsWith('PROBE_STORE_') ? code : 'PROBE_STORE_WRITE';
        outcome.failed.push({ seq, code: storeCode, message: String(message ?? error) });
      },
    );
  });
  if (units) outcome.windows = kept.size;
  if (units) outcome.work = threadWork;
  void Promise.all(puts).then(() => {
    sayThreadMemory(memory, heap.collections);
    port.postMessage(outcome);
    // Answered first: the app's thread does not wait for the collection.
    void heap.afterBatch(memory[0]!).then(() => sayThreadMemory(memory, heap.collections));
  });
});
