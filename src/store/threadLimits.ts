import type { ResourceLimits } from 'node:worker_threads';

/**
 * The store's thread's V8 heap, bounded (peak RSS within plain OTel + 64 MiB at 50 KB answers). Measured
 * under bench/peers.mjs at 50 KB with V8's defaults, the thread's heap reached 82 MB, most of it young generation:
 * V8 sizes the young generation by the machine's memory (up to 3 × 16 MiB semi-spaces), and every unit it builds
 * makes tens of 50 KB strings that die within the batch. A small young generation collects them a few MB at a time;
 * the old generation's bound only stops a runaway build. 4 MB rather than 8 (50 KB answers, load 15-17):
 * the thread's heap total at rest 12 MB against 16, under bench/store-rss.mjs's 80 units/s peak RSS 87-98 MB against
 * 90-105, under bench/peers.mjs 167-178 against 166-193; paired CPU 0.981 (0.968-1.001) of the 8 MB build. A unit too large to build within it kills
 * the thread with ERR_WORKER_OUT_OF_MEMORY: ThreadedStore counts the units it held as lost, says so once, and
 * starts another thread (at most MAX_THREAD_RESTARTS times; then units are built on the app's thread, as when the
 * thread dies of anything else).
 */
export const THREAD_RESOURCE_LIMITS: ResourceLimits = {
  maxYoungGenerationSizeMb: 4,
  // Not a bound on what a busy server holds (the young generation and the Backlog's bound do that) but on one
  // capture's build: 96 MB killed the thread on a script's own capture (600 calls of 118 KB answers, 70 MB of
  // bodies), which was then lost; a capture that large is the app's data, kept as it was before the bound.
  maxOldGenerationSizeMb: 1024,
};

export const MAX_THREAD_RESTARTS = 3;

/** The thread died of its heap bound (Node's 'error' event for a worker out of memory). */
export function diedOfHeap(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}
