import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Store } from '../capture/Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { type FileStore, preparePut, type PreparedPut } from './FileStore';
import { StoreError } from './StoreError';
import { WRITE_THREAD_MARK } from './threadMark';

/** Puts written on the app's thread before the write thread starts: a short script never pays for a thread. */
const PUTS_BEFORE_THREAD = 8;
/**
 * Puts are handed to the thread in batches: one message each way per batch instead of per capture. Every
 * message wakes the other thread and runs an event dispatch on both; on a busy server that cost more than
 * the writes. A batch leaves when it is this old or this big, whichever comes first.
 */
const BATCH_MS = 20;
const BATCH_MAX = 64;
const THREAD_SCRIPT = path.join(__dirname, 'fileStoreThread.js');

interface Pending {
  prepared: PreparedPut;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A batch's outcome, from the thread: the puts written, and the faults of the ones that were not. */
export interface BatchDone {
  done: number[];
  failed: Array<{ seq: number; code: string; message: string }>;
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
  /** Puts waiting for their batch to leave, as [seq, prepared] pairs. */
  private batch: Array<[number, PreparedPut]> = [];
  private batchTimer: NodeJS.Timeout | null = null;
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
      this.batch.push([seq, prepared]);
      if (this.batch.length >= BATCH_MAX) this.send();
      else this.batchTimer ??= setTimeout(() => this.send(), BATCH_MS);
    });
  }

  private send(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    const batch = this.batch;
    this.batch = [];
    if (batch.length) this.worker?.postMessage(batch);
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
    this.send();
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
        workerData: { [WRITE_THREAD_MARK]: true, path: this.store.path, limit: this.store.limit, within: this.store.within },
        execArgv: [],
        env: {},
        stdout: true,
        stderr: true,
      });
      worker.unref();
      worker.on('message', (message: BatchDone) => this.settle(message));
      worker.on('error', (error) => this.lose(error));
      worker.on('exit', (code) => this.lose(new Error(`the write thread exited (${code})`)));
      this.worker = worker;
    } catch (error) {
      this.available = false;
      this.logger?.debug('file store: writing on the app thread', error);
    }
    return this.worker;
  }

  private settle({ done, failed }: BatchDone): void {
    for (const seq of done) this.take(seq)?.resolve();
    for (const { seq, code, message } of failed) this.take(seq)?.reject(new StoreError(code, message));
    if (this.pending.size === 0) this.idle();
  }

  private take(seq: number): Pending | undefined {
    const pending = this.pending.get(seq);
    this.pending.delete(seq);
    return pending;
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
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    this.batch = [];
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) this.store.putPrepared(p.prepared).then(p.resolve, p.reject);
    this.idle();
  }
}
