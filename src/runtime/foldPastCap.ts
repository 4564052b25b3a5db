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
  const calls = unit.calls;
  // In place: a sweep every FOLD_EVERY calls walks the kept calls but makes no new array of them.
  let kept = 0;
  let rows = 0;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    // An agent's own calls take no row and are not counted: read now those not read yet (once per file).
    call.settle(config.root, config.origin.enabled);
    if (call.byAgent) continue;
    if (rows < lens.max_rows || !call.done || !fold(unit, call, lens, logger)) calls[kept++] = call;
    rows++;
  }
  calls.length = kept;
}

/** Folds one finished call past the cap into the unit's totals; false (the call is kept) when that failed. */
function fold(unit: Unit, call: Unit['calls'][number], lens: ResolvedHttpLens, logger: Logger): boolean {
  try {
    // Its facts straight from the record: a folded call never becomes a row, so no input is made for it.
    foldCall((unit.folded ??= emptyFold()), call, call.start, lens.masker);
    return true;
  } catch (error) {
    logger.warnOnce('fold', 'could not count a call past max_rows', error);
    return false;
  }
}
