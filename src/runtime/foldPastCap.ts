import type { ResolvedConfig, ResolvedHttpLens } from '../config/types';
import type { Logger } from '../util/logger';
import type { Unit } from './Unit';
import { emptyFold, foldCall } from '../builder/fold';

/** Calls past `max_rows` are folded into totals in sweeps of this many, not one by one. */
export const FOLD_EVERY = 64;

/**
 * Calls past `max_rows` never become rows, only totals: fold the finished ones into the unit's running
 * totals and let them go, so a job making 100,000 calls holds `max_rows` records, not 100,000. Calls are
 * added in start order, so the first `max_rows` stay whole, as the builder would keep them.
 */
export function foldPastCap(unit: Unit, lens: ResolvedHttpLens, config: ResolvedConfig, logger: Logger): void {
  // An agent's own calls take no row and are not counted: read now those not read yet (once per file).
  const calls = unit.calls.filter((call) => {
    call.settle(config.root, config.origin.enabled);
    return !call.byAgent;
  });
  const keep = calls.slice(0, lens.max_rows);
  for (let i = lens.max_rows; i < calls.length; i++) {
    const call = calls[i]!;
    if (!call.done) {
      keep.push(call);
      continue;
    }
    try {
      // Its facts straight from the record: a folded call never becomes a row, so no input is made for it.
      foldCall((unit.folded ??= emptyFold()), call, call.start, lens.masker);
    } catch (error) {
      logger.warnOnce('fold', 'could not count a call past max_rows', error);
      keep.push(call);
    }
  }
  unit.calls.length = 0;
  unit.calls.push(...keep);
}
