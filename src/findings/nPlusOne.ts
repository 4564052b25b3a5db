import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, endOf, roundMs } from './callFacts';

/**
 * N+1: the same endpoint called N times or more one after another in one unit (a loop fetching item by item
 * where one call for all of them would do). "One after another": consecutive in start order, with no call to
 * another endpoint between them.
 */
export const nPlusOne: FindingRule = {
  kind: 'n_plus_one',
  find({ rows, order, settings }: FindingInput): Finding[] {
    const out: Finding[] = [];
    let start = 0;
    for (let i = 1; i <= order.length; i++) {
      if (i < order.length && rows[order[i]!]!.endpoint === rows[order[start]!]!.endpoint) continue;
      const run = order.slice(start, i);
      if (run.length >= settings.nPlusOne) {
        const endpoint = rows[run[0]!]!.endpoint;
        const first = rows[run[0]!]!;
        const spent = Math.max(...run.map((index) => endOf(rows[index]!))) - first.time;
        out.push({
          kind: 'n_plus_one',
          message: `N+1: ${endpoint} called ${run.length} times in a row (${roundMs(spent)} ms); one call for all of them would do`,
          rows: run,
          lines: codeLines(rows, run),
          endpoint,
        });
      }
      start = i;
    }
    return out;
  },
};
