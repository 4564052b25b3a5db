import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Store } from './Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { FileStore, preparePut, type PreparedPut } from './FileStore';
import { StoreError } from './StoreError';
import { WRITE_THREAD_MARK } from './thread-mark';

/** Puts written on the app's thread before the write thread starts: a short script never pays for a thread. */
const PUTS_BEFORE_THREAD = 8;
const THREAD_SCRIPT = path.join(__dirname, 'fileStoreThread.js');

interface Pending {
  prepared: PreparedPut;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The file driver as an app's runtime uses it: captures are serialized on the app's thread and written by
 * a worker thread. Why: the file driver's writes are synchronous (through fs promises, every call pays the
 * app's async hooks), and on the app's thread they held its event loop for every file created, renamed and
 * trimmed: about a tenth of a busy server's main-thread time on this project's benchmark machine, and
 * unbounded on a slow or contended disk. Reads, clear and the exit path's putSync stay on the calling
 * thread. If the thread cannot start or dies, its pending puts and all later ones are written here.
 */
export class ThreadedFileStore implements Store {
  private worker: Worker | null = null;
  private available = true;
  private puts = 0;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  /** close() waiting for the pending puts to settle. */
  private readonly onIdle: Array<() => void> = [];

  constructor(
    private readonly store: FileStore,
    private readonly logger?: Logger,
    private readonly script = THREAD_SCRIPT,
  ) {}

  async put(capture: Capture): Promise<void> {
    const prepared = preparePut(capture);
    const worker = ++this.puts > PUTS_BEFORE_THREAD ? this.thread() : null;
    if (!worker) return this.store.putPrepared(prepared);
    const seq = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      // Referenced while writes are pending, as a pending fs call would be: the process waits for them.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(seq, { prepared, resolve, reject });
      worker.postMessage({ seq, prepared });
    });
  }

  putSync(capture: Capture): void {
    this.store.putSync(capture);
  }

  find(id: string): Promise<Capture | null> {
    return this.store.find(id);
  }

  index(): Promise<IndexRow[]> {
    return this.store.index();
  }

  clear(): Promise<void> {
    return this.store.clear();
  }

  async close(): Promise<void> {
    this.available = false;
    const worker = this.worker;
    if (!worker) return;
    if (this.pending.size) await new Promise<void>((resolve) => this.onIdle.push(resolve));
    this.worker = null;
    await worker.terminate();
  }

  /** True once puts go to the write thread (for tests and diagnostics). */
  get threaded(): boolean {
    return this.worker !== null;
  }

  private thread(): Worker | null {
    if (this.worker || !this.available) return this.worker;
    try {
      // Not there when running from TypeScript sources (tests load dist/ for the runtime).
      if (!existsSync(this.script)) throw new Error(`no ${this.script}`);
      const worker = new Worker(this.script, {
        workerData: { [WRITE_THREAD_MARK]: true, path: this.store.path, limit: this.store.limit },
        execArgv: [],
        env: {},
        stdout: true,
        stderr: true,
      });
      worker.unref();
      worker.on('message', (message: { seq: number; error?: { code: string; message: string } }) => this.settle(message));
      worker.on('error', (error) => this.lose(error));
      worker.on('exit', (code) => this.lose(new Error(`the write thread exited (${code})`)));
      this.worker = worker;
    } catch (error) {
      this.available = false;
      this.logger?.debug('file store: writing on the app thread', error);
    }
    return this.worker;
  }

  private settle({ seq, error }: { seq: number; error?: { code: string; message: string } }): void {
    const pending = this.pending.get(seq);
    if (!pending) return;
    this.pending.delete(seq);
    if (error) pending.reject(new StoreError(error.code, error.message));
    else pending.resolve();
    if (this.pending.size === 0) this.idle();
  }

  private idle(): void {
    this.worker?.unref();
    for (const resolve of this.onIdle.splice(0)) resolve();
  }

  /** The thread is gone: what it had pending, and every later put, is written on this thread. */
  private lose(error: unknown): void {
    if (!this.worker) return;
    this.worker = null;
    if (this.available) this.logger?.warnOnce('file-store-thread', 'the file store write thread stopped; writing on the app thread', error);
    this.available = false;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) this.store.putPrepared(p.prepared).then(p.resolve, p.reject);
    this.idle();
  }
}
