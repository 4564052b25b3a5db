import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Store } from '../capture/Store';
import type { Capture, IndexRow } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import type { UnitInput } from '../builder/input';
import type { Logger } from '../util/logger';
import type { BuildSource } from './buildSource';
import { lazyModule } from '../util/lazyModule';
import { RowCache } from '../builder/RowCache';

/** Building on the app's thread (custom parts, the exit path) loads the builder then: the thread builds the rest. */
const builder = lazyModule(() => require('../builder/buildCapture') as typeof import('../builder/buildCapture'));
import { FileStore, preparePut, type PreparedPut } from './FileStore';
import type { RedisStore } from './RedisStore';
import { StoreError } from './StoreError';
import type { FolderPin } from './folderPin';
import { STORE_THREAD_EXEC_ARGV, WRITE_THREAD_MARK } from '../util/threadMark';
import { Backlog } from './Backlog';
import { bodyLength } from './bodyLength';
import { packUnit, type PackedUnit } from './unitMessage';
import { PartLedger, type Split } from './unitParts';
import { diedOfHeap, MAX_THREAD_RESTARTS, THREAD_RESOURCE_LIMITS } from './threadLimits';
import type { threadWork } from '../util/threadWork';
import { readThreadMemory, sharedThreadMemory, type ThreadMemory } from './threadMemory';

/**
 * Puts (and units) written on the app's thread before the store's thread starts: a short script never pays for
 * a thread (starting one costs tens of ms of CPU and holds the end of a process that stores a few captures),
 * and building a small unit costs tens of µs. A unit keeping more body bytes than SMALL_UNIT_BYTES starts the
 * thread at once: building it here could stall the app's event loop past the 50 ms target. So does a running
 * version (a unit stored again each second while it runs: a script's or poller's command capture) holding more than
 * SMALL_RUNNING_CALLS calls: its calls keep coming, and built here the thread would build its rows again when it
 * takes over, so each ended call is built and serialised once, on the thread (RowCache).
 */
const PUTS_BEFORE_THREAD = 8;
const SMALL_UNIT_BYTES = 64 * 1024;
const SMALL_RUNNING_CALLS = 64;
/** At exit: how long the app's thread waits for the store's thread to write the units it was handed. */
const EXIT_WAIT_MS = 5_000;
/**
 * Puts are handed to the thread in batches: one message each way per batch instead of per capture. Every
 * message wakes the other thread and runs an event dispatch on both; on a busy server that cost more than
 * the writes. A batch leaves when it is this old or this big, whichever comes first.
 */
const BATCH_MS = 20;
const BATCH_MAX = 64;
/**
 * How old a batch of units gets before it leaves. Longer than BATCH_MS (sampling): with 1 unit in 10
 * recorded a 20 ms batch held one unit, so each recorded unit paid a whole round trip (the store's thread woken
 * from sleep, a message dispatched each way, its answer and memory report): measured on a 2-core VM, a round
 * trip costs both threads about 150-300 µs of CPU, more than building and writing a small capture. A busy
 * server recording everything fills a batch by BATCH_MAX or BATCH_MAX_BYTES first; captures show up at most
 * this much later, and the exit path and close() send what waits at once.
 */
const UNIT_BATCH_MS = 100;
/**
 * A batch of units also leaves once its bodies pass this many bytes. Small (peak RSS): the thread receives
 * a batch's units all at once and they live until each is built, long enough to reach its old generation, which
 * is collected far less often; and the bytes in flight are released only when the whole batch is answered.
 */
const BATCH_MAX_BYTES = 2 * 1024 * 1024;
const THREAD_SCRIPT = path.join(__dirname, 'storeThread.js');
/**
 * A thread that could not start, or stopped, for want of a resource that comes back (descriptors, processes: EMFILE
 * under a burst of sockets) is started again this long after; meanwhile captures are written on the app thread.
 */
const RETRY_THREAD_MS = 5_000;
const TRANSIENT = /\b(EMFILE|ENFILE|EAGAIN)\b/;

/** Whether a thread's fault is a resource that comes back (its code, or its message from inside the thread). */
function transient(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return (typeof code === 'string' && TRANSIENT.test(code)) || TRANSIENT.test(String((error as Error)?.message ?? ''));
}

interface Pending {
  /** A capture serialized here, or a unit to build there (its bodies are gone from here once posted). */
  prepared: PreparedPut | null;
  unit: PackedUnit | null;
  /** The whole unit, built here if the thread never gets it (a packed unit in parts holds only its new calls). */
  whole: UnitInput | null;
  /** A running version in parts: its unit id (forgotten if the put fails: the next version goes whole). */
  partOf: string | null;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** A unit's put: resolves it as dropped (lost with a thread that ran out of its heap). */
  drop?: () => void;
}

/** How the store's thread opens the same built-in driver: plain data, as workerData carries it. */
export type ThreadDriver =
  | { driver: 'file'; path: string; limit: number; testLimit: number | undefined; within: string | undefined; pin: FolderPin | null }
  | { driver: 'redis'; url: string; prefix: string; ttl: number; limit: number };

/** What the store's thread posts: a batch's outcome, or whether it could load the config to build units. */
export type ThreadMessage = BatchDone | { ready: true } | { ready: false; message: string };

export interface ThreadedStoreOptions {
  /** The app's resolved config: units are built with it here when the thread cannot build them. */
  config?: ResolvedConfig;
  /** How the thread loads the same config; null: units are built on the app's thread (said under PROBE_DEBUG). */
  build?: BuildSource | null;
  /** Bound on the bytes in flight to the thread (default MAX_BACKLOG_BYTES). */
  maxBacklogBytes?: number;
  /** The thread's V8 heap bounds (default THREAD_RESOURCE_LIMITS; tests make them tiny). */
  threadLimits?: ResourceLimits;
  /** How far the thread's heap grows past its live size before it collects between batches (HeapCollector). */
  heapStepBytes?: number;
}

/** A batch's outcome, from the thread: the puts written, and the faults of the ones that were not. */
export interface BatchDone {
  done: number[];
  failed: Array<{ seq: number; code: string; message: string }>;
  /** After a batch of units: how many units the thread keeps calls of (open windows handed in parts). */
  windows?: number;
  /** After a batch of units: the thread's work counters (util/threadWork), said under PROBE_DEBUG. */
  work?: typeof threadWork;
}

/**
 * A built-in driver (file or Redis) as an app's runtime uses it: ended units are built, serialized and written
 * by a worker thread, the store's thread (putUnit), which opens the same driver with the same settings. Why: building a capture from bodies of tens of KB (decoding,
 * masking, serializing) cost the app's thread about 100 ns per body byte, and the file driver's
 * writes are synchronous (through fs promises, every call pays the app's async hooks): on the app's thread
 * they held its event loop for every file created, renamed and trimmed. The app's thread copies each kept
 * body once into a buffer that is transferred, not copied, to the thread; the bytes in flight are bounded
 * (Backlog). A unit stored again while it runs (the process's command capture) is handed in parts: only the
calls not handed before (unitParts.ts). Captures built here (put: a config whose parts were given in code) are serialized here and
 * written there (file), or written here by the app thread's own connection (Redis: its I/O does not block). Reads, clear and the exit path's putSync stay on the calling thread. If the thread cannot
 * start or load the config, units are built here; if it dies, its pending puts and all later ones are
 * written here (units already posted to it are lost, and rejected).
 */
export class ThreadedStore implements Store {
  private worker: Worker | null = null;
  private available = true;
  /** Not before this (performance.now()): the last thread stopped for a transient fault (RETRY_THREAD_MS). */
  private retryAt = 0;
  private puts = 0;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  /** Puts waiting for their batch to leave, as [seq, prepared] pairs. */
  private batch: Array<[number, PreparedPut]> = [];
  /** Units waiting for their batch to leave (or for the thread to have loaded the config), and each one whole. */
  private unitBatch: Array<[number, PackedUnit, UnitInput]> = [];
  /** Units stored in parts: what the thread keeps of each (see unitParts.ts). */
  private readonly parts = new PartLedger();
  /** Rows of the ended calls of units built here, built and serialised once for all their versions (RowCache). */
  private readonly rows = new RowCache();
  /** Units in parts whose last version the thread will not get: it forgets them after the next batch. */
  private forgets: string[] = [];
  private windowsThere = 0;
  private unitBatchBytes = 0;
  /** The thread loaded the config: null while it loads, false when it could not (units are built here). */
  private buildsThere: boolean | null = null;
  /**
   * Units posted to the thread, and (shared with it) those it has finished and those of them that failed: the exit
   * path waits on these. `failedSeen`: failures whose answer reached this thread (their puts rejected, counted lost
   * by the writer); those whose answer never will (process.exit()) are the difference.
   */
  private posted = 0;
  private readonly finished = new Int32Array(new SharedArrayBuffer(8));
  private failedSeen = 0;
  /** What the thread says it holds (threadMemory.ts). */
  private readonly threadMemory = sharedThreadMemory();
  private readonly threadLimits: ResourceLimits;
  private readonly heapStepBytes: number | undefined;
  /** Threads started again after one ran out of its heap, and the units lost with them. */
  private restarts = 0;
  private lostToHeap = 0;
  private readonly backlog: Backlog;
  private readonly config: ResolvedConfig | null;
  private readonly build: BuildSource | null;
  private batchTimer: NodeJS.Timeout | null = null;
  /** close() waiting for the pending puts to settle. */
  private readonly onIdle: Array<() => void> = [];

  /** The exit path's synchronous write: only a driver that has one (file). */
  readonly putSync?: (capture: Capture) => void;

  constructor(
    private readonly store: FileStore | RedisStore,
    private readonly logger?: Logger,
    private readonly script = THREAD_SCRIPT,
    options: ThreadedStoreOptions = {},
  ) {
    this.config = options.config ?? null;
    this.build = options.config ? (options.build ?? null) : null;
    this.backlog = new Backlog(logger, options.maxBacklogBytes);
    this.threadLimits = options.threadLimits ?? THREAD_RESOURCE_LIMITS;
    this.heapStepBytes = options.heapStepBytes;
    if (this.config && !this.build) this.buildsThere = false;
    if (store instanceof FileStore) this.putSync = (capture) => store.putSync(capture);
  }

  /** True when putUnit() takes ended units (the app's config was given). */
  get takesUnits(): boolean {
    return this.config !== null;
  }

  /** Units dropped because the thread had fallen behind, and their bytes (since start). */
  get dropped(): { units: number; bytes: number; lost: number } {
    return { units: this.backlog.droppedUnits, bytes: this.backlog.droppedBytes, lost: this.lostToHeap };
  }

  /**
   * Stores an ended unit: built, serialized and written on the store's thread; here when the thread cannot
   * build (see the class), or for the first few small units of a process. Resolves false, without waiting,
   * when the unit was dropped because the thread is behind (counted and said by the Backlog).
   */
  putUnit(unit: UnitInput): Promise<boolean> {
    const small =
      !this.worker && this.puts < PUTS_BEFORE_THREAD && keptBytes(unit) <= SMALL_UNIT_BYTES && !(unit.partial && unit.calls.length > SMALL_RUNNING_CALLS);
    if (small || this.buildsThere === false || !this.available) return this.putBuiltHere(unit).then(() => true);
    const worker = this.thread();
    if (!worker) return this.putBuiltHere(unit).then(() => true);
    this.puts++;
    const split = this.parts.split(unit);
    let packed: PackedUnit;
    try {
      packed = packUnit(split ? split.unit : unit);
    } catch (error) {
      // A unit the recorder made in a shape packing did not expect: built here rather than lost.
      this.logger?.debug('file store: a unit could not be packed for the thread; built here', error);
      if (split?.unit.parts!.last) this.forgetParts(unit.id);
      return this.putBuiltHere(unit).then(() => true);
    }
    // A running version dropped is retried by the next one (its calls not recorded as handed); the last version of a
    // unit in parts is not dropped: the thread holds the rest of its window (a script's one capture was lost so, its
    // running versions in flight when it ended).
    if (!this.backlog.admit(packed.bytes, split?.unit.parts!.last === true)) {
      if (split?.unit.parts!.last) this.forgetParts(unit.id);
      return Promise.resolve(false);
    }
    if (split) this.commitParts(split);
    const seq = ++this.seq;
    return new Promise<boolean>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      const partOf = split && !split.unit.parts!.last ? unit.id : null;
      this.pending.set(seq, { prepared: null, unit: packed, whole: unit, partOf, resolve: () => resolve(true), reject, drop: () => resolve(false) });
      this.unitBatch.push([seq, packed, unit]);
      this.unitBatchBytes += packed.bytes;
      if (this.unitBatch.length >= BATCH_MAX || this.unitBatchBytes >= BATCH_MAX_BYTES) this.send();
      else this.batchTimer ??= setTimeout(() => this.send(), UNIT_BATCH_MS);
    });
  }

  /**
   * Records a split as handed. The bodies the thread keeps of an open window are not counted in the Backlog's
   * bound: the bound is for what waits on a thread that fell behind, while a window is bounded by itself (past
   * `max_rows` its calls are folded and leave it), is a copy of what the app's thread holds anyway, and goes with
   * its last version. Counted, one background window past the bound would drop every later capture, its own
   * versions included (before, the whole window was in flight again every second instead).
   */
  private commitParts(split: Split): void {
    this.parts.commit(split);
    const parts = split.unit.parts!;
    // Under PROBE_DEBUG: what the app's thread copied for this version (tests count each body handed once).
    this.logger?.debug(
      `store: unit ${split.unit.id} handed in parts: ${parts.fresh.length} new call(s) of ${parts.keys.length}, ${split.freshBytes} body bytes${parts.last ? ' (last)' : ''}; the thread keeps ${this.parts.keptBytes} body bytes of open windows`,
    );
  }

  /** Whether the running thread, config loaded, keeps calls of this unit (its next version goes in parts). */
  keepsParts(id: string): boolean {
    return this.worker !== null && this.available && this.buildsThere === true && this.parts.has(id);
  }

  /** The writer dropped this unit's last version (its queue was full): the thread drops what it keeps of it. */
  forgetUnit(id: string): void {
    this.forgetParts(id);
  }

  /** The thread will not get this unit's last version: it drops what it keeps of it (after what was posted). */
  private forgetParts(id: string): void {
    if (!this.parts.has(id)) return;
    this.parts.forget(id);
    this.forgets.push(id);
    if (this.worker) this.batchTimer ??= setTimeout(() => this.send(), BATCH_MS);
  }

  /** A unit built and serialized here (written on the thread when it runs); a build that throws rejects. */
  private putBuiltHere(unit: UnitInput): Promise<void> {
    try {
      return this.put(this.buildHere(unit));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private buildHere(unit: UnitInput): Capture {
    return builder().buildCapture(unit, this.config!, this.rows);
  }

  async put(capture: Capture): Promise<void> {
    // The Redis driver's writes do not block: built here, the capture is written by this thread's connection.
    const late = ++this.puts > PUTS_BEFORE_THREAD;
    if (!(this.store instanceof FileStore)) return this.store.put(capture, this.rows);
    const prepared = preparePut(capture, this.rows);
    const worker = late ? this.thread() : null;
    if (!worker) return this.store.putPrepared(prepared);
    const seq = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      // Referenced while writes are pending, as a pending fs call would be: the process waits for them.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(seq, { prepared, unit: null, whole: null, partOf: null, resolve, reject });
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
    // Units wait while the thread loads the config; its answer sends them.
    if (this.buildsThere !== true || !this.worker || (!this.unitBatch.length && !this.forgets.length)) return;
    const units = this.unitBatch;
    this.unitBatch = [];
    this.unitBatchBytes = 0;
    const forget = this.forgets;
    this.forgets = [];
    const transfer = units.flatMap(([, packed]) => packed.transfer);
    try {
      this.worker.postMessage({ units: units.map(([seq, packed]) => [seq, packed.unit]), forget }, transfer);
    } catch (error) {
      // A value structured clone refuses (a unit's meta is the app's data): nothing was sent, nothing transferred.
      this.logger?.debug('file store: a batch of units could not be posted to the thread; built here', error);
      this.forgets.push(...forget);
      for (const [seq, packed, whole] of units) {
        const pending = this.take(seq)!;
        // Its calls never reached the thread: a last version is forgotten there, a running one's next goes whole.
        if (packed.unit.parts?.last) this.forgets.push(whole.id);
        else if (packed.unit.parts) this.parts.forget(whole.id);
        this.putBuiltHere(whole).then(pending.resolve, pending.reject);
      }
      if (this.pending.size === 0) this.idle();
      return;
    }
    this.posted += units.length;
    // Posted: the bodies now belong to the thread; the entry keeps only its byte count for the backlog.
    for (const [seq] of units) {
      const pending = this.pending.get(seq);
      if (pending?.unit) pending.unit = { unit: pending.unit.unit, transfer: [], bytes: pending.unit.bytes };
      if (pending) pending.whole = null;
    }
  }

  /**
   * At exit, where nothing async runs any more: units the thread has not loaded the config for are built and
   * written here; those posted to it are waited for (at most EXIT_WAIT_MS; the thread runs on while this one
   * blocks). Returns the units lost (the thread did not finish them in time).
   */
  settleSync(): number {
    // A driver without a synchronous write (Redis) gives them to the thread even while it loads the config: it
    // takes messages only once it has, and counts a unit it could not build as finished (failed).
    if (this.buildsThere === null && !this.putSync && this.worker) this.buildsThere = true;
    if (this.buildsThere === true && this.worker) this.send();
    for (const [seq, , whole] of this.unitBatch.splice(0)) {
      const pending = this.take(seq);
      if (!this.putSync) {
        // No thread and no synchronous write: written asynchronously (at beforeExit it still runs).
        if (pending) this.putBuiltHere(whole).then(pending.resolve, pending.reject);
        continue;
      }
      try {
        this.putSync(this.buildHere(whole));
        pending?.resolve();
      } catch (error) {
        pending?.reject(error);
      }
    }
    this.unitBatchBytes = 0;
    // Nothing left for a thread still loading the config: it must not hold the process's end.
    if (this.pending.size === 0) this.idle();
    const end = Date.now() + EXIT_WAIT_MS;
    for (;;) {
      const done = Atomics.load(this.finished, 0);
      const left = end - Date.now();
      if (done >= this.posted || left <= 0 || !this.worker) {
        return Math.max(0, this.posted - done) + Math.max(0, Atomics.load(this.finished, 1) - this.failedSeen);
      }
      Atomics.wait(this.finished, 0, done, left);
    }
  }

  find(id: string): Promise<Capture | null> {
    return this.store.find(id);
  }

  index(): Promise<IndexRow[]> {
    return this.store.index();
  }

  whyEmpty(): string | null {
    return (this.store as Store).whyEmpty?.() ?? null;
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
    await this.store.close();
  }

  /** Bytes handed to the thread and not yet answered for (bounded by the Backlog). */
  get inFlight(): number {
    return this.backlog.inFlight;
  }

  /** What the store's thread said it held after its last batch (zeros before it ran one). */
  memory(): ThreadMemory {
    return readThreadMemory(this.threadMemory);
  }

  /** Units the thread said it keeps calls of, as of its last answer (for tests and diagnostics). */
  get windowsKept(): number {
    return this.windowsThere;
  }

  /** True once puts go to the write thread (for tests and diagnostics). */
  get threaded(): boolean {
    return this.worker !== null;
  }

  private thread(): Worker | null {
    if (this.worker || !this.available || performance.now() < this.retryAt) return this.worker;
    try {
      // Not there when running from TypeScript sources (tests load dist/ for the runtime).
      if (!existsSync(this.script)) throw new Error(`no ${this.script}`);
      const worker = new Worker(this.script, {
        workerData: {
          [WRITE_THREAD_MARK]: true,
          store: this.driver(),
          build: this.build,
          finished: this.finished,
          memory: this.threadMemory,
          heapStep: this.heapStepBytes,
        },
        execArgv: STORE_THREAD_EXEC_ARGV,
        resourceLimits: this.threadLimits,
        // The config file the thread loads reads the app's environment as the app did.
        env: this.build?.env ?? {},
        stdout: true,
        // Probe's own warnings from the thread (a user's mask that throws) reach the app's stderr.
        stderr: !this.build,
      });
      worker.unref();
      // A thread replaced after it ran out of heap says nothing more (its 'exit' follows its 'error').
      worker.on('message', (message: ThreadMessage) => this.worker === worker && this.answer(message));
      worker.on('error', (error) => this.died(worker, error));
      worker.on('exit', (code) => this.died(worker, new Error(`the write thread exited (${code})`)));
      this.worker = worker;
    } catch (error) {
      if (transient(error)) this.retryAt = performance.now() + RETRY_THREAD_MS;
      else this.available = false;
      this.logger?.debug('file store: writing on the app thread', error);
    }
    return this.worker;
  }

  private driver(): ThreadDriver {
    const store = this.store;
    if (store instanceof FileStore)
      return { driver: 'file', path: store.path, limit: store.limit, testLimit: store.testLimit, within: store.within, pin: store.folderPin };
    return { driver: 'redis', url: store.url, prefix: store.prefix, ttl: store.ttl, limit: store.limit };
  }

  private answer(message: ThreadMessage): void {
    if (!('ready' in message)) return this.settle(message);
    this.buildsThere = message.ready;
    if (message.ready) return this.send();
    this.logger?.debug(`building captures on the app thread: the store's thread could not load the config (${message.message})`);
    // Units held for it are built here, and every later one: none is kept there in parts.
    for (const [seq, , whole] of this.unitBatch.splice(0)) {
      const pending = this.take(seq)!;
      this.putBuiltHere(whole).then(pending.resolve, pending.reject);
    }
    this.unitBatchBytes = 0;
    this.parts.clear();
    this.forgets = [];
    if (this.pending.size === 0) this.idle();
  }

  private settle({ done, failed, windows, work }: BatchDone): void {
    if (windows !== undefined) this.windowsThere = windows;
    // Tests read how often the thread built and serialised rows (a long unit's each once, whatever its versions).
    if (work) this.logger?.debug(`store thread work: ${JSON.stringify(work)}`);
    for (const seq of done) this.take(seq)?.resolve();
    for (const { seq, code, message } of failed) {
      const pending = this.take(seq);
      if (pending?.unit) this.failedSeen++;
      // What the thread keeps of a unit whose running version failed is not relied on: its next version goes whole.
      if (pending?.partOf) this.parts.forget(pending.partOf);
      pending?.reject(new StoreError(code, message));
    }
    if (this.pending.size === 0) this.idle();
  }

  private take(seq: number): Pending | undefined {
    const pending = this.pending.get(seq);
    this.pending.delete(seq);
    if (pending?.unit) this.backlog.release(pending.unit.bytes);
    return pending;
  }

  private idle(): void {
    if (this.pending.size) return;
    this.worker?.unref();
    for (const resolve of this.onIdle.splice(0)) resolve();
  }

  private died(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    if (diedOfHeap(error) && this.restarts < MAX_THREAD_RESTARTS) this.restart(error);
    else this.lose(error);
  }

  /**
   * The thread ran out of its heap bound (threadLimits.ts): the units posted to it are lost (their bodies went with
   * it), counted and said once; captures serialized here are written here; units and puts not yet posted go to a
   * new thread, which loads the config again. What it kept of units in parts went with it: a held version in parts
   * is built here whole, and the next versions start again whole.
   */
  private restart(error: unknown): void {
    this.restarts++;
    this.worker = null;
    this.parts.clear();
    this.forgets = [];
    for (const [seq, packed, whole] of this.unitBatch.filter(([, packed]) => packed.unit.parts)) {
      const pending = this.take(seq);
      this.unitBatchBytes -= packed.bytes;
      if (pending) this.putBuiltHere(whole).then(pending.resolve, pending.reject);
    }
    this.unitBatch = this.unitBatch.filter(([, packed]) => !packed.unit.parts);
    const waiting = new Set([...this.unitBatch, ...this.batch].map(([seq]) => seq));
    let lost = 0;
    for (const [seq, p] of [...this.pending]) {
      if (waiting.has(seq)) continue;
      this.pending.delete(seq);
      if (p.prepared) {
        (this.store as FileStore).putPrepared(p.prepared).then(p.resolve, p.reject);
      } else if (p.unit) {
        this.backlog.release(p.unit.bytes);
        lost++;
        p.drop?.();
      }
    }
    this.lostToHeap += lost;
    // The new thread counts from zero what the exit path waits for.
    this.posted = 0;
    this.failedSeen = 0;
    Atomics.store(this.finished, 0, 0);
    Atomics.store(this.finished, 1, 0);
    if (this.build) this.buildsThere = null;
    this.logger?.warnOnce(
      'store-thread-heap',
      `the store's thread ran out of its heap bound; ${lost} capture(s) it was building were lost (${this.lostToHeap} since start); a new thread took over`,
      error,
    );
    const worker = this.thread();
    if (worker && this.pending.size) worker.ref();
    if (!worker) this.lose(error);
    else if (this.batch.length) this.batchTimer ??= setTimeout(() => this.send(), BATCH_MS);
  }

  /** The thread is gone: what it had pending, and every later put, is written on this thread. */
  private lose(error: unknown): void {
    if (!this.worker) return;
    this.worker = null;
    const again = this.available && transient(error);
    if (this.available)
      this.logger?.warnOnce(
        'file-store-thread',
        `the file store write thread stopped; writing on the app thread${again ? ' until a new one can start' : ''}`,
        error,
      );
    this.available = again;
    if (again) {
      // A new thread counts from zero what the exit path waits for (as after a restart).
      this.retryAt = performance.now() + RETRY_THREAD_MS;
      this.posted = 0;
      this.failedSeen = 0;
      Atomics.store(this.finished, 0, 0);
      Atomics.store(this.finished, 1, 0);
      if (this.build) this.buildsThere = null;
    }
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    this.batch = [];
    const held = new Map(this.unitBatch.map(([seq, , whole]) => [seq, whole]));
    this.unitBatch = [];
    this.unitBatchBytes = 0;
    // What it kept of units in parts went with it: their next versions are built here, whole.
    this.parts.clear();
    this.forgets = [];
    const pending = [...this.pending.entries()];
    this.pending.clear();
    for (const [seq, p] of pending) {
      if (p.unit) this.backlog.release(p.unit.bytes);
      if (p.prepared) (this.store as FileStore).putPrepared(p.prepared).then(p.resolve, p.reject);
      // Held here, its bodies are still here; posted, they went with the thread.
      else if (held.has(seq)) this.putBuiltHere(held.get(seq)!).then(p.resolve, p.reject);
      else p.reject(new StoreError('PROBE_STORE_WRITE', 'the store thread stopped before writing the capture'));
    }
    this.idle();
  }
}

/** Body bytes a unit keeps (what building it costs is about linear in them). */
function keptBytes(unit: UnitInput): number {
  let bytes = 0;
  for (const call of unit.calls) bytes += bodyLength(call.requestBody) + bodyLength(call.responseBody);
  return bytes;
}
