import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, roundMs } from './callFacts';

/** Calls of an endpoint the stored captures must hold before its p95 says what is usual. */
export const SLOW_MIN_CALLS = 10;
/** How much slower than the p95 a call must be, as a factor and in ms (both): much slower, not noise. */
export const SLOW_FACTOR = 2;
export const SLOW_MIN_MS = 50;

/** A call much slower than its endpoint's p95 across the stored captures. */
export const slowerThanUsual: FindingRule = {
  kind: 'slow',
  find({ rows, order, endpoints }: FindingInput): Finding[] {
    if (!endpoints) return [];
    const out: Finding[] = [];
    for (const index of order) {
      const row = rows[index]!;
      const stat = endpoints.get(row.endpoint);
      if (!stat || stat.count < SLOW_MIN_CALLS || row.duration === null) continue;
      if (row.duration < stat.p95 * SLOW_FACTOR || row.duration - stat.p95 < SLOW_MIN_MS) continue;
      out.push({
        kind: 'slow',
        message: `slow: ${row.method} ${row.url} took ${roundMs(row.duration)} ms, ${roundMs(row.duration / stat.p95)}× the p95 of ${row.endpoint} (${roundMs(stat.p95)} ms over ${stat.count} stored calls)`,
        rows: [index],
        lines: codeLines(rows, [index]),
        endpoint: row.endpoint,
      });
    }
    return out;
  },
};
