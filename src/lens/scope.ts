import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallRecord } from '../runtime/CallRecord';
import type { Unit } from '../runtime/Unit';

/** The pool a call is made in: `pool(fn)` runs fn inside one. */
export const poolScope = new AsyncLocalStorage<{ unit: Unit; number: number }>();

/** The app-level `fetch()` call in progress, so its redirect hops fold into one row. */
export const fetchScope = new AsyncLocalStorage<CallRecord>();

/** Pool number for a call made now in `unit`, or null outside a pool (or in another unit's pool). */
export function currentPool(unit: Unit): number | null {
  const pool = poolScope.getStore();
  return pool && pool.unit === unit ? pool.number : null;
}
