import type { Masker } from '../mask/Masker';
import type { FoldedCallsInput } from './input';
import { callFacts, failureLine, type FactsInput } from './callFacts';

/** Failed calls named in `summary.errors`; the rest are only counted. */
export const MAX_ERRORS = 3;

export function emptyFold(): FoldedCallsInput {
  return { count: 0, ms: 0, byHost: {}, failed: 0, errors: [], pools: {} };
}

/**
 * Adds one call to running totals: the summary's counts and the time span of its pool. The one totals path:
 * the recorder folds finished calls past `max_rows` here as they pile up, so a job making 100,000 calls
 * holds `max_rows` records, not 100,000, and `buildCapture` folds the calls it still holds the same way.
 * `end`: where a call with no end stops (the unit's end).
 */
export function foldCall(fold: FoldedCallsInput, call: FactsInput, end: number, masker: Masker): void {
  const facts = callFacts(call, end, masker);
  fold.count++;
  fold.ms += facts.duration;
  fold.byHost[facts.host] = (fold.byHost[facts.host] ?? 0) + 1;
  if (facts.failed) {
    fold.failed++;
    if (fold.errors.length < MAX_ERRORS) fold.errors.push(failureLine(call, masker));
  }
  if (call.pool !== null) addToPool(fold, call.pool, call.start, call.end ?? end);
}

/** `into` gains `from`'s totals after its own (errors: `into`'s first). */
export function mergeFold(into: FoldedCallsInput, from: FoldedCallsInput): void {
  into.count += from.count;
  into.ms += from.ms;
  into.failed += from.failed;
  for (const [host, count] of Object.entries(from.byHost)) into.byHost[host] = (into.byHost[host] ?? 0) + count;
  for (const line of from.errors) if (into.errors.length < MAX_ERRORS) into.errors.push(line);
  for (const [pool, bounds] of Object.entries(from.pools)) addToPool(into, Number(pool), bounds.start, bounds.end);
}

function addToPool(fold: FoldedCallsInput, pool: number, start: number, end: number): void {
  const bounds = fold.pools[pool];
  if (!bounds) fold.pools[pool] = { start, end };
  else {
    bounds.start = Math.min(bounds.start, start);
    bounds.end = Math.max(bounds.end, end);
  }
}
