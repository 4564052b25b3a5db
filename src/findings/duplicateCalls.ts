import type { Finding, FindingInput, FindingRule } from './Finding';
import { WRITE_METHODS, answerIdentity, bytesOf, codeLines, plural, requestIdentity, roundMs } from './callFacts';
import { groupCalls } from './groupCalls';

/**
 * Identical calls answered identically in one unit: same method, URL and body, and the same answer (status and
 * body), so the repeats could reuse the first answer. Left out: repeats whose answers differ (polling a job until
 * it is done, a counter: the app asked again because the answer changes), failed calls (the `retry` rule's) and
 * writes (`repeated_write`). The lines name each caller, up the origin chain where the calls went through one
 * shared client.
 */
export const duplicateCalls: FindingRule = {
  kind: 'duplicate',
  find({ rows, order, endpointOf, timeline }: FindingInput): Finding[] {
    const groups = groupCalls(order, (index) => (WRITE_METHODS.has(rows[index]!.method) ? null : requestIdentity(rows[index]!)));
    const out: Finding[] = [];
    for (const group of groups) {
      if (group.length < 2 || group.some((index) => rows[index]!.failed)) continue;
      const answer = answerIdentity(rows[group[0]!]!);
      if (!group.every((index) => answerIdentity(rows[index]!) === answer)) continue;
      const first = rows[group[0]!]!;
      const repeats = group.slice(1);
      const ms = roundMs(timeline.exclusiveMs(repeats));
      out.push({
        kind: 'duplicate',
        message: `duplicate: ${first.method} ${first.url} made ${plural(group.length, 'time')} with the same request and the same answer; the repeats cost ${ms} ms on the unit's path`,
        rows: group,
        lines: codeLines(rows, group),
        endpoint: endpointOf[group[0]!]!,
        saving_ms: ms,
        cost: { ms, calls: repeats.length, bytes: repeats.reduce((sum, index) => sum + bytesOf(rows[index]!), 0) },
      });
    }
    return out;
  },
};
