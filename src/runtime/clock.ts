import { performance } from 'node:perf_hooks';

/** Fixed for the process's life; read once instead of through the getter on every mark. */
const ORIGIN = performance.timeOrigin;

/** Epoch milliseconds with sub-ms precision, monotonic within the process. */
export function now(): number {
  return ORIGIN + performance.now();
}
