import type { Logger } from '../util/logger';

/**
 * Bytes in flight to the store's thread past which ended units are dropped (peak RSS within plain OTel +
 * 64 MiB). A quarter of that margin: the rest is the thread's own heap while it builds (bounded by threadLimits.ts;
 * 25-52 MB measured at 50 KB answers) and the app thread's own copies of the bodies of calls in progress. Measured
 * at 50 KB answers on 2 cores at load 9, a bound of 32 MiB was reached, with the thread 71 units behind, at plain
 * OTel + 88 MB.
 */
export const MAX_BACKLOG_BYTES = 16 * 1024 * 1024;

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * The bytes handed to the store's thread and not yet answered for, bounded: nothing on the app's thread ever
 * waits for the thread, so a unit that would pass the bound is dropped, counted (units and bytes), said once
 * when dropping starts, and said again with the count once the backlog has drained (to half the bound).
 */
export class Backlog {
  private bytes = 0;
  /** Since the process started. */
  droppedUnits = 0;
  droppedBytes = 0;
  /** Dropped since the backlog last drained (the next message's count). */
  private unsaidUnits = 0;
  private unsaidBytes = 0;

  constructor(
    private readonly logger: Logger | undefined,
    readonly limit = MAX_BACKLOG_BYTES,
  ) {}

  get inFlight(): number {
    return this.bytes;
  }

  /**
   * True (and counted in) when `bytes` fit; false, dropped and counted, when they would pass the bound. `must`:
   * counted in whatever the bound says (the last version of a unit whose earlier calls the thread keeps: dropping
   * it would lose every call of the window, not just these bytes).
   */
  admit(bytes: number, must = false): boolean {
    if (must) {
      this.bytes += bytes;
      return true;
    }
    // A unit larger than the bound (a long job's or script's own capture, hundreds of calls with their bodies)
    // would never fit: it goes while the thread is not behind (at most half the bound in flight), its bodies being
    // in memory already. Dropping it whenever anything at all was in flight lost a script's one capture at exit
    // (600 calls, 37 MB of bodies, beside 0.5 MB of its server's small units).
    const alone = bytes > this.limit && this.bytes <= this.limit / 2;
    if (this.bytes + bytes > this.limit && !alone) {
      if (this.unsaidUnits === 0) {
        this.logger?.warn(`the store's thread fell behind (${mb(this.bytes)} in flight); dropping captures until it catches up`);
      }
      this.droppedUnits++;
      this.droppedBytes += bytes;
      this.unsaidUnits++;
      this.unsaidBytes += bytes;
      return false;
    }
    this.bytes += bytes;
    return true;
  }

  release(bytes: number): void {
    this.bytes = Math.max(0, this.bytes - bytes);
    // Drained: back under half the bound, where units are admitted again however the load goes on.
    if (this.unsaidUnits && this.bytes <= this.limit / 2) {
      this.logger?.warn(
        `the store's thread caught up; ${this.unsaidUnits} capture(s) (${mb(this.unsaidBytes)}) were dropped while it was behind (${this.droppedUnits} since start)`,
      );
      this.unsaidUnits = 0;
      this.unsaidBytes = 0;
    }
  }
}
