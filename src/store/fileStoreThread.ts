/**
 * The file store's write thread (started by ThreadedFileStore): writes the batches of puts the app's thread
 * serialized and runs the trims, so a slow or busy disk never holds the app's event loop. Nothing here
 * touches the app; a fault is sent back with its put.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FileStore, type PreparedPut } from './FileStore';
import type { BatchDone } from './ThreadedFileStore';

const { path, limit, within } = workerData as { path: string; limit: number; within: string | undefined };
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

port.on('message', (batch: Array<[number, PreparedPut]>) => {
  const outcome: BatchDone = { done: [], failed: [] };
  // The writes are synchronous and the trim is shared: one answer per batch, once its trim has run.
  const puts = batch.map(([seq, prepared]) =>
    store.putPrepared(prepared).then(
      () => void outcome.done.push(seq),
      (error: unknown) => {
        // A StoreError keeps its code; a file system error (ENOSPC, EACCES...) becomes PROBE_STORE_WRITE.
        const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
        const storeCode = typeof code === 'string' && code.startsWith('PROBE_STORE_') ? code : 'PROBE_STORE_WRITE';
        outcome.failed.push({ seq, code: storeCode, message: String(message ?? error) });
      },
    ),
  );
  void Promise.all(puts).then(() => port.postMessage(outcome));
});
