import { performance } from 'node:perf_hooks';

/** Read once: a constant of the process, and a getter of Node's on every read. */
const ORIGIN = performance.timeOrigin;

/** Epoch milliseconds with sub-ms precision, monotonic within the process. */
export function now(): number {
  return ORIGIN + performance.now();
}
