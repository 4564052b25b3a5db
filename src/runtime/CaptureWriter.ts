import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { Capture } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import type { Store } from '../capture/Store';
import type { Logger } from '../util/logger';
import type { UnitInput } from '../builder/input';
import { lazyModule } from '../util/lazyModule';
import { withDeadline } from '../util/deadline';

/** The builder loads with the first unit built on the app's thread (the store's thread builds the others). */
const builder = lazyModule(() => require('../builder/buildCapture') as typeof import('../builder/buildCapture'));

/**
 * A store that builds ended units itself, off the app's thread (the file and Redis stores as apps get them:
 * store/ThreadedStore.ts). putUnit resolves false when the unit was dropped because that thread is behind
 * (the store counts and says it); settleSync, at exit, finishes what it was handed and returns the units lost.
 */
interface UnitStore {
  readonly takesUnits: boolean;
  putUnit(unit: UnitInput): Promise<boolean>;
  settleSync(): number;
  /** A unit's last version will never be handed over (dropped here): what its thread keeps of it goes. */
  forgetUnit?(id: string): void;
  /** Whether a running thread keeps this unit's earlier calls (it was stored in parts): its last version goes there. */
  keepsParts?(id: string): boolean;
}

function unitStoreOf(store: Store): UnitStore | null {
  const candidate = store as Partial<UnitStore>;
  return candidate.takesUnits === true && typeof candidate.putUnit === 'function' && typeof candidate.settleSync === 'function'
    ? (candidate as UnitStore)
    : null;
}

const MAX_QUEUE = 500;
const DRAIN_BATCH = 20;
/** Puts awaited at once: past it units wait in the queue, so a store that hangs fills the queue and drops are counted. */
const MAX_IN_FLIGHT = 64;
/** A put that has not settled by then counts as failed (a custom store may never answer). */
export const PUT_TIMEOUT_MS = 10_000;
/**
 * A store that fails again this soon after it was said to be back (a nearly full disk: a small capture fits, the
 * next does not) is one outage that goes on: counted, not said again, until it has written without a failure this
 * long, or the app exits.
 */
const STEADY_MS = 30_000;

/**
 * Builds and stores captures after their unit of work has ended, off the response path: units queue up and
 * are drained on a later turn of the event loop, one batch at a time. Store I/O runs with tracing
 * suppressed so a driver's own traffic is never recorded. Like OTel's BatchSpanProcessorBase: a bounded
 * queue that says when it drops, and again how many once the store has caught up; a deadline on every put;
 * `shutdown()` runs once and stops accepting. A store that fails (Redis down) is said once per outage, and
 * again when a put succeeds, with the captures lost meanwhile: drivers reject what they cannot write rather
 * than queue it themselves, so this count is the whole of it.
 *
 * Where the capture is built: a store that builds units itself (the file store, on its thread) is handed the
 * unit as recorded (the built-in drivers); for a custom driver it is built here, on the app's thread.
 */
export class CaptureWriter {
  private queue: UnitInput[] = [];
  private scheduled = false;
  private readonly writing = new Set<Capture>();
  /** Units handed to a store that builds them (not re-sent at exit: the store settles them, settleSync). */
  private readonly handed = new Set<UnitInput>();
  private readonly units: UnitStore | null;
  /** flush() callers waiting for the writes in progress to settle. */
  private waiting: Array<() => void> = [];
  /** Captures lost (queue full, put failed or timed out) since the process started. */
  dropped = 0;
  /** Units the store's thread had not written, or failed to write, when the process ended (settleHandedSync). */
  private lostAtExit = false;
  /** Captures the store confirmed. */
  stored = 0;
  /** Of those, the ones not yet reported as a total. */
  private unreported = 0;
  /** A put failed and none has succeeded since: the store is out (said once, and again when it is back). */
  private failing = false;
  /**
   * The store refused for good (its folder was replaced while the app ran: FileStore): said once, and every
   * later capture is dropped here, neither built nor counted (the line said nothing more is stored).
   */
  private halted = false;
  /** Ids of running versions lost (see lose): bounded by the units stored while they run, one per process or thread. */
  private readonly lostRunning = new Set<string>();
  /** Why the store fails now, when the store said it (the capture folder): repeated with the count at exit. */
  private outage: string | null = null;
  /** When the store was last said to be back, and when a put last failed (see STEADY_MS). */
  private backAt = -Infinity;
  private failedAt = -Infinity;
  /** The outage said goes on after a short recovery: its losses wait for a steady store, or the exit. */
  private flapping = false;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly putTimeoutMs = PUT_TIMEOUT_MS,
  ) {
    this.units = unitStoreOf(store);
    if (!this.units) logger.debug(`building captures on the app thread: the ${config.storage.driver} store is given built captures`);
  }

  enqueue(unit: UnitInput): void {
    if (this.stopping || this.halted) return;
    if (this.queue.length >= MAX_QUEUE) {
      this.lose(unit.id, unit.status === 'running');
      // The last version of a unit stored in parts: the store's thread would otherwise keep its earlier calls.
      if (!unit.partial) this.units?.forgetUnit?.(unit.id);
      this.logger.warnOnce('writer-queue-full', `capture queue full (${MAX_QUEUE}); dropping captures until the store catches up`);
      return;
    }
    this.queue.push(unit);
    this.schedule();
  }

  /**
   * At exit, before settleHandedSync: the last versions of units whose earlier calls the store's thread keeps (a
   * script's or poller's command capture, stored in parts while it ran) are handed to it, with only their new calls,
   * rather than built here whole: every row built and serialised again on the app's thread as the process ends.
   */
  handKeptSync(): void {
    const units = this.units;
    if (!units?.keepsParts || this.halted) return;
    const kept = this.queue.filter((unit) => units.keepsParts!(unit.id));
    if (!kept.length) return;
    this.queue = this.queue.filter((unit) => !kept.includes(unit));
    for (const unit of kept) this.hand(units, unit);
  }

  /** Builds everything still queued, without storing it (for the synchronous exit path). */
  takeQueued(): Capture[] {
    const units = this.queue;
    this.queue = [];
    return units.flatMap((unit) => this.build(unit) ?? []);
  }

  private build(unit: UnitInput): Capture | null {
    try {
      return builder().buildCapture(unit, this.config);
    } catch (error) {
      this.logger.warnOnce('build-failed', 'could not build a capture', error);
      return null;
    }
  }

  /**
   * Builds and stores at most DRAIN_BATCH captures per turn: the file driver writes synchronously, and a
   * burst of hundreds of ended units must not hold the app's event loop for one long turn.
   */
  private drain(): void {
    this.scheduled = false;
    if (this.units) {
      // Handing a unit over costs a copy of its bodies: the store bounds what is in flight in bytes.
      for (const unit of this.queue.splice(0, DRAIN_BATCH)) this.hand(this.units, unit);
      if (this.queue.length) this.schedule();
      return;
    }
    // Full: written() drains again when a put settles.
    const units = this.queue.splice(0, Math.max(0, Math.min(DRAIN_BATCH, MAX_IN_FLIGHT - this.writing.size)));
    for (const unit of units) {
      const capture = this.build(unit);
      if (capture) this.put(capture);
    }
    if (this.queue.length && this.writing.size < MAX_IN_FLIGHT) this.schedule();
  }

  private hand(store: UnitStore, unit: UnitInput): void {
    this.handed.add(unit);
    let write: Promise<boolean>;
    try {
      write = withDeadline(
        context.with(suppressTracing(context.active()), () => store.putUnit(unit)),
        this.putTimeoutMs,
        `the ${this.config.storage.driver} store's put`,
      );
    } catch (error) {
      write = Promise.reject(error);
    }
    this.settleWith(write, unit, true);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain()).unref?.();
  }

  put(capture: Capture): void {
    this.writing.add(capture);
    let write: Promise<void>;
    try {
      write = withDeadline(
        context.with(suppressTracing(context.active()), () => this.store.put(capture)),
        this.putTimeoutMs,
        `the ${this.config.storage.driver} store's put`,
      );
    } catch (error) {
      write = Promise.reject(error);
    }
    this.settleWith(write, capture);
  }

  /** One reaction per put, no promise chain across puts: this runs for every capture of a busy server. */
  private settleWith(write: Promise<boolean | void>, item: Capture | UnitInput, handed = false): void {
    write.then(
      (kept) => {
        this.written(item);
        // Dropped by a store whose thread is behind: counted here, said by the store (with its bytes).
        if (handed && kept === false) return void this.dropped++;
        this.succeeded(item);
      },
      (error: unknown) => {
        if (haltsStore(error)) {
          if (!this.halted) this.logger.warn('stopped storing captures', error);
          this.halted = true;
          this.written(item);
          return;
        }
        this.failed(item, error);
        this.written(item);
      },
    );
  }

  private succeeded(item: Capture | UnitInput): void {
    this.stored++;
    // A running version was lost, and this later version of the same capture is stored: nothing of it was lost.
    if (this.lostRunning.delete(item.id)) {
      this.dropped--;
      this.unreported = Math.max(0, this.unreported - 1);
    }
    const steady = performance.now() - this.failedAt >= STEADY_MS;
    if (this.flapping && !steady) {
      this.failing = false; // back for now: the count waits until it stays back (or the exit says it)
      return;
    }
    if (this.failing || this.flapping) {
      this.logger.warn(
        `the ${this.config.storage.driver} store is back; ${this.unreported} capture(s) were lost while it failed (${this.dropped} since start)`,
      );
      this.backAt = performance.now();
    } else if (this.unreported) {
      this.logger.warn(`the store caught up; ${this.unreported} capture(s) were lost before (${this.dropped} since start)`);
    }
    this.failing = false;
    this.flapping = false;
    this.outage = null;
    this.unreported = 0;
  }

  private failed(item: Capture | UnitInput, error: unknown): void {
    this.lose(item.id, item.status === 'running');
    const code = (error as { code?: unknown })?.code;
    // The file store's own message names the folder, why and what to do: said as it is.
    const told = code === 'PROBE_STORE_UNWRITABLE' || code === 'PROBE_STORE_WRITE';
    const now = performance.now();
    // Failing again soon after it came back: the same outage (see STEADY_MS).
    if (!this.failing && (this.flapping || now - this.backAt < STEADY_MS)) this.flapping = true;
    this.failedAt = now;
    // Once per outage: every later failure until a put succeeds is only counted (PROBE_DEBUG shows each).
    if (this.failing || this.flapping) this.logger.debug('could not store a capture', error);
    else if (told) this.logger.warn(String((error as Error).message));
    else this.logger.warn('could not store a capture', error);
    this.failing = true;
    if (told) this.outage = 'the capture folder could not be written';
  }

  /**
   * At exit: the captures lost and not yet said (an outage that has not ended, a full queue), once. Without
   * it, an app that ends while Redis is down would say the outage but never what it cost.
   */
  sayLost(): void {
    if (!this.unreported) return;
    const why = this.outage
      ? ` while ${this.outage}`
      : this.failing
        ? ` while the ${this.config.storage.driver} store failed (it had not answered again at exit)`
        : this.lostAtExit
          ? ` at exit (the store's thread could not write them)`
          : '';
    this.logger.warn(`${this.unreported} capture(s) were lost${why} (${this.dropped} since start)`);
    this.unreported = 0;
  }

  /**
   * Counts captures, not writes: a unit stored while it runs (the process's command capture) and its last version
   * are one capture, lost once however many of its versions fail.
   */
  private lose(id: string, running: boolean): void {
    if (this.lostRunning.has(id)) {
      if (!running) this.lostRunning.delete(id);
      return;
    }
    if (running) this.lostRunning.add(id);
    this.dropped++;
    this.unreported++;
  }

  private written(item: Capture | UnitInput): void {
    if (!this.writing.delete(item as Capture)) this.handed.delete(item as UnitInput);
    if (this.queue.length) this.schedule();
    if (this.writing.size === 0 && this.handed.size === 0 && this.waiting.length) for (const resolve of this.waiting.splice(0)) resolve();
  }

  /**
   * At exit: the units handed to a store that builds them are finished by it now (it waits for its thread, or
   * builds here what the thread never got); those it could not finish are counted as lost.
   */
  settleHandedSync(): void {
    if (!this.units || this.handed.size === 0) return;
    const lost = this.units.settleSync();
    if (lost) this.lostAtExit = true;
    this.dropped += lost;
    this.unreported += lost;
  }

  /** Stores captures now when the driver can do it synchronously; false when it cannot (nothing done). */
  putAllSync(captures: Capture[]): boolean {
    if (typeof this.store.putSync !== 'function') return false;
    if (this.halted) return true;
    for (const capture of captures) {
      try {
        this.store.putSync(capture);
        this.succeeded(capture);
      } catch (error) {
        this.failed(capture, error);
      }
    }
    return true;
  }

  /** Captures handed to the store whose write has not finished (re-sent by the exit path). */
  unconfirmed(): Capture[] {
    return [...this.writing];
  }

  get idle(): boolean {
    return this.queue.length === 0 && this.writing.size === 0 && this.handed.size === 0;
  }

  async flush(): Promise<void> {
    while (!this.idle) {
      if (this.queue.length) this.drain();
      if (this.writing.size || this.handed.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Stores what is queued, then accepts nothing more. Runs once; later calls get the same promise. */
  shutdown(): Promise<void> {
    if (!this.stopping) {
      const flushing = this.flush();
      this.stopping = flushing;
    }
    return this.stopping;
  }
}

/** A store error after which nothing more may be written: the capture folder was replaced while the app ran. */
function haltsStore(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'PROBE_STORE_UNSAFE_PATH';
}
