import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import workerThreads, { BroadcastChannel } from 'node:worker_threads';
import { patchMethod } from '../util/patches';
import { isValidCaptureId } from '../capture/indexRow';

/** Carried to a new thread in its copy of the environment (read and removed by the thread's Probe at start). */
const PARENT_ENV = 'PROBE_THREAD_PARENT';
const OWNER_ENV = 'PROBE_THREAD_OF';

export interface ThreadOrigin {
  /** The capture that was open where the app made the thread (a request, a job, the process's own). */
  parentId: string | null;
  /** The command name of the process that made it: the thread's captures are `<that> › <thread script>`. */
  owner: string | null;
}

/**
 * Main side: a `Worker` made by the app carries, in its copy of the environment, which capture was open when it
 * was made and the process's command name. Node copies the environment at construction (`env` defaults to
 * `process.env`; an app's own object, often `{ ...process.env, KEY }`, is copied the same way), so passing that
 * same copy plus two entries, which the thread's Probe takes out as it starts, changes nothing else the thread
 * sees. A thread given `SHARE_ENV` shares the process's own environment, which Probe does not write: it is not
 * linked, and named by its script alone.
 * https://nodejs.org/api/worker_threads.html#new-workerfilename-options (`env`)
 */
export function linkNewThreads(openCapture: () => { id: string; name: string }, flusher: ThreadFlusher): () => void {
  const undoTerminate = patchMethod(
    workerThreads.Worker.prototype,
    'terminate',
    'worker_threads.Worker.prototype.terminate',
    "terminate() runs none of the thread's listeners: the thread is asked to store its captures first (ThreadFlusher)",
    (original) =>
      function terminate(this: InstanceType<typeof workerThreads.Worker>, ...args: unknown[]) {
        const run = () => (original as (...a: unknown[]) => Promise<number>).apply(this, args);
        if (args.length > 0 || this.threadId < 0) return run(); // the deprecated callback form, or an ended thread
        return flusher.flush(this.threadId).then(run, run);
      } as typeof original,
  );
  const undo = patchMethod(
    workerThreads,
    'Worker',
    'worker_threads.Worker',
    "a thread's captures name its script and link to the capture that made it: the thread reads both from its environment copy",
    (Original) => {
      function Worker(this: unknown, filename: unknown, options?: Record<string, unknown>) {
        let next = options;
        const env = options?.env === undefined || options.env === null ? process.env : options.env;
        if (typeof env === 'object' && env !== null) {
          try {
            const { id, name } = openCapture();
            next = { ...options, env: { ...env, [PARENT_ENV]: id, [OWNER_ENV]: name } };
          } catch {
            next = options; // never in the app's way
          }
        }
        const worker = Reflect.construct(Original, [filename, next], new.target ?? Original) as InstanceType<typeof Original>;
        const threadId = worker.threadId;
        worker.once('exit', () => flusher.ended(threadId));
        return worker;
      }
      Object.setPrototypeOf(Worker, Original);
      Worker.prototype = Original.prototype;
      Object.defineProperty(Worker, 'name', { value: Original.name });
      return Worker as unknown as typeof Original;
    },
  );
  syncBuiltinESMExports();
  return () => {
    undo?.();
    undoTerminate?.();
    flusher.close();
    syncBuiltinESMExports();
  };
}

/** Thread side: where this thread came from, read once at start; the two entries leave the app's environment. */
export function threadOrigin(): ThreadOrigin | null {
  if (workerThreads.isMainThread) return null;
  const parent = process.env[PARENT_ENV];
  const owner = process.env[OWNER_ENV];
  delete process.env[PARENT_ENV];
  delete process.env[OWNER_ENV];
  return { parentId: parent && isValidCaptureId(parent) ? parent : null, owner: owner || null };
}

/** `main.js › workers/resize.js`: the thread's script (known once it runs: Node sets argv[1] then) under its maker. */
export function threadName(origin: ThreadOrigin, root: string): string {
  const script = process.argv[1];
  const relative = script ? path.relative(root, script) : '';
  const shown = !script ? 'worker' : relative && !relative.startsWith('..') ? relative : script;
  return origin.owner ? `${origin.owner} › ${shown}` : shown;
}

/** The channel a process's threads and its main thread share for Probe's flush handshake. */
const CHANNEL = 'probe:threads';
/** Longest a terminate() or the main thread's exit waits for threads to store what they hold. */
export const THREAD_FLUSH_MS = 1000;

interface FlushRequest {
  probeFlush: number | 'all';
  /** The status the thread's command capture ends with: the process's exit code, or 1 (a terminated thread's). */
  code: number;
  ack: Int32Array;
}

/**
 * Thread side: a thread's captures are stored when the app ends it (`worker.terminate()`, which runs none of the
 * thread's 'exit' listeners) or when the process ends (SIGTERM kills threads without a word): the main thread asks
 * on a BroadcastChannel, the thread stores synchronously and counts itself done in the shared `ack`. The channel
 * is unref'd: it never keeps the thread alive.
 */
export function answerFlushes(flush: (code: number) => void): () => void {
  if (workerThreads.isMainThread) return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  (channel as unknown as { unref(): void }).unref();
  channel.onmessage = (event: unknown) => {
    const data = (event as { data?: FlushRequest }).data;
    if (!data || !(data.ack instanceof Int32Array) || (data.probeFlush !== 'all' && data.probeFlush !== workerThreads.threadId)) return;
    try {
      flush(typeof data.code === 'number' ? data.code : 1);
    } finally {
      Atomics.add(data.ack, 0, 1);
      Atomics.notify(data.ack, 0);
    }
  };
  channel.postMessage({ probeThread: workerThreads.threadId });
  return () => channel.close();
}

/**
 * Main side: which threads run Probe (they say so when they start), and asking them to store what they hold:
 * synchronously at the process's exit, asynchronously before a `terminate()` goes ahead.
 */
export class ThreadFlusher {
  private readonly live = new Set<number>();
  private readonly channel: BroadcastChannel;

  constructor() {
    this.channel = new BroadcastChannel(CHANNEL);
    (this.channel as unknown as { unref(): void }).unref();
    this.channel.onmessage = (event: unknown) => {
      const id = (event as { data?: { probeThread?: unknown } }).data?.probeThread;
      if (typeof id === 'number') this.live.add(id);
    };
  }

  ended(threadId: number): void {
    this.live.delete(threadId);
  }

  /** At the process's exit: every live thread stores what it holds, within THREAD_FLUSH_MS in all. */
  flushAllSync(code: number): void {
    if (this.live.size === 0) return;
    const ack = this.ask('all', code);
    const deadline = Date.now() + THREAD_FLUSH_MS;
    for (let seen = Atomics.load(ack, 0); seen < this.live.size; seen = Atomics.load(ack, 0)) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      Atomics.wait(ack, 0, seen, left);
    }
  }

  /** Before `terminate()`: that thread stores what it holds (or THREAD_FLUSH_MS passes). */
  async flush(threadId: number): Promise<void> {
    if (!this.live.has(threadId)) return;
    const ack = this.ask(threadId, 1);
    const waited = (Atomics as unknown as { waitAsync?: (a: Int32Array, i: number, v: number, t: number) => { value: unknown } }).waitAsync?.(
      ack,
      0,
      0,
      THREAD_FLUSH_MS,
    );
    await waited?.value;
  }

  close(): void {
    this.channel.close();
  }

  private ask(target: number | 'all', code: number): Int32Array {
    const ack = new Int32Array(new SharedArrayBuffer(4));
    this.channel.postMessage({ probeFlush: target, code, ack } satisfies FlushRequest);
    return ack;
  }
}
