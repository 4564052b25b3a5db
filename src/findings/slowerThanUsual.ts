import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, roundMs } from './callFacts';
import { servedMs } from './endpointStats';

/** Other calls of an endpoint the stored captures must hold before they say what is usual. */
export const SLOW_MIN_OTHERS = 3;
/** Captures made before stats kept every duration: calls needed for their p95 alone. */
export const SLOW_MIN_CALLS = 10;
/** How much slower than the others' p95 a call must be, as a factor and in ms (both): much slower, not noise. */
export const SLOW_FACTOR = 2;
export const SLOW_MIN_MS = 50;

/**
 * A call much slower than the OTHER calls of its endpoint across the stored captures: the call itself is taken out
 * of what is usual (with few stored calls, a p95 that holds the slow call hides it). Says from how many. Times are
 * taken after the connection opened (endpointStats.ts: servedMs).
 */
export const slowerThanUsual: FindingRule = {
  kind: 'slow',
  find({ rows, order, endpoints, statsInclude, endpointOf, timeline }: FindingInput): Finding[] {
    if (!endpoints) return [];
    const out: Finding[] = [];
    for (const index of order) {
      const row = rows[index]!;
      const served = servedMs(row);
      if (served === null || row.fake || row.cache) continue;
      const endpoint = endpointOf[index]!;
      const stat = endpoints.get(endpoint) ?? endpoints.get(row.endpoint);
      if (!stat) continue;
      const usual = othersP95(stat, statsInclude ? served : null);
      if (!usual) continue;
      if (served < usual.p95 * SLOW_FACTOR || served - usual.p95 < SLOW_MIN_MS) continue;
      const ms = roundMs(Math.min(timeline.exclusiveMs([index]), served - usual.p95));
      out.push({
        kind: 'slow',
        message: `slow: ${row.method} ${row.url} took ${roundMs(served)} ms${served < row.duration! ? ' after its connection opened' : ''}, ${roundMs(served / usual.p95)}× the p95 of ${endpoint} (${roundMs(usual.p95)} ms over ${usual.count} other stored calls)`,
        rows: [index],
        lines: codeLines(rows, [index]),
        endpoint,
        saving_ms: ms,
        cost: { ms, calls: 0, bytes: 0 },
      });
    }
    return out;
  },
};

/** The p95 of the endpoint's calls other than one of `own` duration (binary search: the durations are sorted). */
function othersP95(stat: FindingInput['endpoints'] extends ReadonlyMap<string, infer S> | undefined ? S : never, own: number | null) {
  const all = stat.durations;
  if (!all) return stat.count >= SLOW_MIN_CALLS ? { p95: stat.p95, count: stat.count } : null;
  let skip = -1;
  if (own !== null) {
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (all[mid]! < own) lo = mid + 1;
      else hi = mid;
    }
    if (all[lo] === own) skip = lo;
  }
  const count = all.length - (skip >= 0 ? 1 : 0);
  if (count < SLOW_MIN_OTHERS) return null;
  const rank = Math.max(1, Math.ceil(0.95 * count));
  const at = skip >= 0 && rank - 1 >= skip ? rank : rank - 1;
  const p95 = all[at]!;
  return p95 > 0 ? { p95, count } : null;
}
