import { performance } from 'node:perf_hooks';

/** Epoch milliseconds with sub-ms precision, monotonic within the process. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Converts a `performance.now()` reading to epoch ms. */
export function fromPerf(perfMs: number): number {
  return performance.timeOrigin + perfMs;
}
