import type { HttpRow } from '../capture/types';
import type { ResolvedHttpLens } from '../config/types';
import type { CallInput, FoldedCallsInput } from './input';
import { buildHttpRow, innermostMessage } from './httpRow';

/** Failed calls named in `summary.errors`; the rest are only counted. */
export const MAX_ERRORS = 3;

export function emptyFold(): FoldedCallsInput {
  return { count: 0, ms: 0, byHost: {}, failed: 0, errors: [], pools: {} };
}

/** The `summary.errors` line of a failed row. */
export function errorLine(row: HttpRow): string {
  return `HTTP call failed: ${row.method} ${row.url} (${row.status ?? innermostMessage(row)})`;
}

/**
 * Adds a finished call past `max_rows` to running totals, so the recorder can let it go instead of
 * holding every call of a long job until the job ends. The totals are what `buildCapture` would have
 * taken from the call's row.
 */
export function foldCall(fold: FoldedCallsInput, call: CallInput, unitStart: number, lens: ResolvedHttpLens): void {
  const end = call.end ?? call.start;
  const row = buildHttpRow(call, unitStart, end, lens);
  fold.count++;
  fold.ms += row.duration ?? 0;
  fold.byHost[row.host] = (fold.byHost[row.host] ?? 0) + 1;
  if (row.failed) {
    fold.failed++;
    if (fold.errors.length < MAX_ERRORS) fold.errors.push(errorLine(row));
  }
  if (call.pool !== null) {
    const bounds = fold.pools[call.pool];
    if (!bounds) fold.pools[call.pool] = { start: call.start, end };
    else {
      bounds.start = Math.min(bounds.start, call.start);
      bounds.end = Math.max(bounds.end, end);
    }
  }
}
