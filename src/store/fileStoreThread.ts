/**
 * The store's thread (started by ThreadedFileStore): builds the captures of the units the app's thread hands
 * over (decoding, masking, buildCapture, serializing), writes them and the captures the app's thread
 * serialized itself, and runs the trims, so neither the build nor a slow or busy disk holds the app's event
 * loop. It loads the app's config itself (a resolved config holds classes, which cannot cross threads), from
 * the same root, file, environment and overrides. Nothing here touches the app; a fault is sent back with its put.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ResolvedConfig } from '../config/types';
import type { UnitInput } from '../builder/input';
import type { BatchDone, ThreadMessage } from './ThreadedFileStore';
import type { BuildSource } from './buildSource';
import { FileStore, preparePut, type PreparedPut } from './FileStore';
import { buildCapture } from '../builder/buildCapture';
import { loadConfig } from '../config/load';
import { unpackUnit } from './unitMessage';

const { path, limit, within, build, finished } = workerData as {
  path: string;
  limit: number;
  within: string | undefined;
  build: BuildSource | null;
  /** Units finished (written or failed), shared with the app's thread: its exit path waits on it. */
  finished: Int32Array;
};
/**
 * Trims at most twice a second here: each one lists and sorts the whole folder, and at a few hundred
 * captures a second a trim per batch listed it far more often than it found files to drop. The folder holds
 * at most half a second of captures over the limit, which readers never show (index() cuts at the limit).
 * The thread's puts overlap, so none waits on another's trim (FileStore's default of 0 is for a caller
 * awaiting each put).
 */
const TRIM_EVERY_MS = 500;
const store = new FileStore({ path, limit, within, trimEveryMs: TRIM_EVERY_MS });
const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);

let config: ResolvedConfig | null = null;
if (build) {
  try {
    config = loadConfig({ cwd: build.cwd, env: build.env, overrides: build.overrides });
    post({ ready: true });
  } catch (error) {
    post({ ready: false, message: String((error as Error)?.message ?? error) });
  }
}

type Put = [number, PreparedPut | (() => PreparedPut)];

port.on('message', (message: Array<[number, PreparedPut]> | { units: Array<[number, UnitInput]> }) => {
  const batch: Put[] = Array.isArray(message)
    ? message
    : message.units.map(([seq, unit]): Put => [seq, () => preparePut(buildCapture(unpackUnit(unit), config!))]);
  const outcome: BatchDone = { done: [], failed: [] };
  // The writes are synchronous and the trim is shared: one answer per batch, once its trim has run.
  const puts = batch.map(([seq, put]) => {
    let written: Promise<void>;
    try {
      written = store.putPrepared(typeof put === 'function' ? put() : put);
    } catch (error) {
      written = Promise.reject(error);
    }
    // Written (or failed) by now: putPrepared writes synchronously, only the trim is left.
    if (typeof put === 'function') {
      Atomics.add(finished, 0, 1);
      Atomics.notify(finished, 0);
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
  void Promise.all(puts).then(() => port.postMessage(outcome));
});
