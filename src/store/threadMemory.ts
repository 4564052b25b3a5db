import type { HeapInfo } from 'node:v8';

/**
 * What the store's thread holds, as it says it into memory shared with the app's thread (read without a message,
 * so the app's thread can bound what it hands over by it): its heap in use and the external bytes it holds (the
 * bodies transferred to it and not yet collected), in bytes, after each batch it has finished.
 */
export interface ThreadMemory {
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** Full collections the thread asked for since it started (HeapCollector). */
  collections: number;
}

const SLOTS = 4;

/** The shared slots, made by the app's thread and handed to the store's thread in its workerData. */
export function sharedThreadMemory(): Float64Array {
  return new Float64Array(new SharedArrayBuffer(SLOTS * Float64Array.BYTES_PER_ELEMENT));
}

/**
 * On the store's thread: its isolate's figures, process.memoryUsage's heapUsed, heapTotal and external read from
 * v8.getHeapStatistics (the same isolate's counters): memoryUsage also reads the process's RSS from /proc, about
 * 18 times the cost, 1.4 % of the thread's time when said after each batch (bench/NOTES.md).
 */
export function sayThreadMemory(into: Float64Array, collections: number): void {
  // node:v8 is loaded here, on the store's thread, not with the app's preload.
  const stats = (require('node:v8') as { getHeapStatistics(): HeapInfo }).getHeapStatistics();
  into[0] = stats.used_heap_size;
  into[1] = stats.total_heap_size;
  // external_memory is in the statistics of every Node line Probe runs on; memoryUsage for one without it.
  into[2] = typeof stats.external_memory === 'number' ? stats.external_memory : process.memoryUsage().external;
  into[3] = collections;
}

export function readThreadMemory(from: Float64Array): ThreadMemory {
  return { heapUsed: from[0]!, heapTotal: from[1]!, external: from[2]!, collections: from[3]! };
}
