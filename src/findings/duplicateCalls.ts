import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, plural, requestIdentity, roundMs } from './callFacts';

/**
 * Identical calls repeated in one unit: same method, URL and body, answered each time (a failed call
 * followed by the same call is a retry, the `retry` rule's). The repeats could reuse the first answer.
 */
export const duplicateCalls: FindingRule = {
  kind: 'duplicate',
  find({ rows, order }: FindingInput): Finding[] {
    const groups = new Map<string, number[]>();
    for (const index of order) {
      const row = rows[index]!;
      if (row.failed) continue;
      const identity = requestIdentity(row);
      if (identity === null) continue;
      const group = groups.get(identity);
      if (group) group.push(index);
      else groups.set(identity, [index]);
    }
    const out: Finding[] = [];
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const first = rows[group[0]!]!;
      const repeats = group.slice(1).reduce((sum, index) => sum + (rows[index]!.duration ?? 0), 0);
      out.push({
        kind: 'duplicate',
        message: `duplicate: ${first.method} ${first.url} made ${plural(group.length, 'time')} with the same body; the repeats took ${roundMs(repeats)} ms`,
        rows: group,
        lines: codeLines(rows, group),
        endpoint: first.endpoint,
        saving_ms: roundMs(repeats),
      });
    }
    return out;
  },
};
