import type { Finding, FindingInput, FindingRule } from './Finding';
import { WRITE_METHODS, bytesOf, chainLines, plural, requestIdentity, roundMs } from './callFacts';
import { groupCalls } from './groupCalls';

/**
 * A write made again after it succeeded: the same POST, PATCH or DELETE (method, URL, body) twice or more in one
 * unit, the first one answered with success. Unlike a repeated read this may change something twice (a second
 * order, a double charge), so it comes first, with every line of every caller's origin chain. A write retried after
 * it failed is the `retry` rule's.
 */
export const repeatedWrite: FindingRule = {
  kind: 'repeated_write',
  find({ rows, order, endpointOf, timeline }: FindingInput): Finding[] {
    const groups = groupCalls(order, (index) => (WRITE_METHODS.has(rows[index]!.method) ? requestIdentity(rows[index]!) : null));
    const out: Finding[] = [];
    for (const group of groups) {
      // From the first success on: attempts before it are a retry.
      const from = group.findIndex((index) => !rows[index]!.failed);
      if (from < 0 || group.length - from < 2) continue;
      const made = group.slice(from);
      const first = rows[made[0]!]!;
      const repeats = made.slice(1);
      const ms = roundMs(timeline.exclusiveMs(repeats));
      out.push({
        kind: 'repeated_write',
        message: `repeated write: ${first.method} ${first.url} made ${plural(made.length, 'time')} with the same body after it succeeded (${first.status}); each may change something again`,
        rows: made,
        lines: chainLines(rows, made),
        endpoint: endpointOf[made[0]!]!,
        saving_ms: ms,
        cost: { ms, calls: repeats.length, bytes: repeats.reduce((sum, index) => sum + bytesOf(rows[index]!), 0) },
      });
    }
    return out;
  },
};
