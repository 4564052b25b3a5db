import { getHeapStatistics } from 'node:v8';

/**
 * What the store's thread holds, as it says it into memory shared with the app's thread (read without a message,
 * so the app's thread can bound what it hands over by it): its heap in use and the external bytes it holds (the
 * bodies transferred to it and not yet collected), in bytes, after each batch it has finished.
 */
export interface ThreadMemory {
  heapUsed: number;
  heapTotal: number;
  external: number;
}

const SLOTS = 3;

/** The shared slots, made by the app's thread and handed to the store's thread in its workerData. */
export function sharedThreadMemory(): Float64Array {
  return new Float64Array(new SharedArrayBuffer(SLOTS * Float64Array.BYTES_PER_ELEMENT));
}

/**
 * On the store's thread: its isolate's figures, the ones process.memoryUsage() gives as heapUsed, heapTotal and
 * external (taken from these same V8 statistics). Read from V8 directly: process.memoryUsage() also reads the
 * process's RSS from /proc, about 10-20 µs a call, paid after every batch (with sampling, about every unit).
 */
export function sayThreadMemory(into: Float64Array): void {
  const { used_heap_size, total_heap_size, external_memory } = getHeapStatistics();
  into[0] = used_heap_size;
  into[1] = total_heap_size;
  into[2] = external_memory;
}

export function readThreadMemory(from: Float64Array): ThreadMemory {
  return { heapUsed: from[0]!, heapTotal: from[1]!, external: from[2]! };
}
