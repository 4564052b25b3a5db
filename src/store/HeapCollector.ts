import { measureMemory } from 'node:vm';
import { getHeapStatistics } from 'node:v8';

/**
 * How far the store's thread's heap may grow past the least it held after a batch before it collects at once. Half
 * V8's own step for a heap this small (8 MB over the live size): bench/store-rss.mjs at 100 units/s of 3 × 50 KB, 2
 * rounds, load 3-5: peak RSS 78, 78 MB with 4 MB (8 collections in 4 s), 78, 83 with 8 MB (7, 5), 84, 83 without;
 * the thread's CPU per unit no higher (3969-4148 µs against 4641-5672, the machine's noise).
 */
export const COLLECT_STEP_BYTES = 4 * 1024 * 1024;

/**
 * Bounds the store's thread's heap under load (peak RSS within plain OTel + 64 MiB at 50 KB answers).
 * Each build promotes the strings it still holds at a scavenge (tens of 50 KB strings per unit); V8 collects them
 * with incremental marking, started when the old generation reaches its limit and advanced as the thread allocates
 * and by helper threads. On 2 busy cores those get little time, the thread keeps building meanwhile, and its heap
 * reached 26-38 MB total under bench/peers.mjs where the live data is about 7 MB. Here, between batches (the
 * thread idle), once the heap in use passed the live size by the step, one full collection is asked for
 * (`vm.measureMemory` with eager execution: the one way to start a full collection without `--expose-gc`, a
 * process-wide V8 flag the app would see).
 */
export class HeapCollector {
  /** The live size: the heap in use after the last collection asked for, or the least seen after a batch since. */
  private live = 0;
  private running = false;
  /** Full collections asked for (tests read it). */
  collections = 0;

  constructor(private readonly stepBytes = COLLECT_STEP_BYTES) {}

  /** After a batch: `used`, the heap in use now. Resolves once a collection it started is done (at once otherwise). */
  afterBatch(used: number): Promise<void> {
    if (this.live === 0 || used < this.live) this.live = used;
    if (this.running || used < this.live + this.stepBytes) return Promise.resolve();
    this.running = true;
    this.collections++;
    return measureMemory({ mode: 'summary', execution: 'eager' }).then(
      () => this.collected(),
      // A runtime without it (or one that refuses): V8's own collections go on as before.
      () => this.collected(),
    );
  }

  private collected(): void {
    this.live = getHeapStatistics().used_heap_size;
    this.running = false;
  }
}
