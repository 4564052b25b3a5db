import { context, createContextKey } from '@opentelemetry/api';
import type { Unit } from './Unit';

export interface Scope<T> {
  getStore(): T | undefined;
  run<R>(store: T, fn: () => R): R;
}

/**
 * A value carried through async work in the OTel context, which is propagated anyway for spans. Not an
 * AsyncLocalStorage of Probe's own: on Node 20 every extra instance adds work to every async resource the
 * app creates, which measured as a few percent of a keep-alive call.
 */
export function contextScope<T>(name: string): Scope<T> {
  const key = createContextKey(name);
  return {
    getStore: () => context.active().getValue(key) as T | undefined,
    run: (store, fn) => context.with(context.active().setValue(key, store), fn),
  };
}

/** The pool a call is made in: `pool(fn)` runs fn inside one. */
export const poolScope = contextScope<{ unit: Unit; number: number }>('probe.pool');

/** Pool number for a call made now in `unit`, or null outside a pool (or in another unit's pool). */
export function currentPool(unit: Unit): number | null {
  const pool = poolScope.getStore();
  return pool && pool.unit === unit ? pool.number : null;
}
