/**
 * The file store's write thread (started by ThreadedFileStore): writes the puts the app's thread serialized
 * and runs the trims, so a slow or busy disk never holds the app's event loop. Nothing here touches the
 * app; a fault is sent back with its put.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FileStore, type PreparedPut } from './FileStore';

interface Job {
  seq: number;
  prepared: PreparedPut;
}

const { path, limit } = workerData as { path: string; limit: number };
const store = new FileStore({ path, limit });
const port = parentPort!;

port.on('message', ({ seq, prepared }: Job) => {
  store.putPrepared(prepared).then(
    () => port.postMessage({ seq }),
    (error: unknown) => {
      // A StoreError keeps its code; a file system error (ENOSPC, EACCES...) becomes PROBE_STORE_WRITE.
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      const storeCode = typeof code === 'string' && code.startsWith('PROBE_STORE_') ? code : 'PROBE_STORE_WRITE';
      port.postMessage({ seq, error: { code: storeCode, message: String(message ?? error) } });
    },
  );
});
