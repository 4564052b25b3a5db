import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, requestIdentity, roundMs } from './callFacts';
import { groupCalls } from './groupCalls';

/**
 * A call retried after a failure: a failed call (an error status or no response, a reset) followed later in the
 * unit by the same call (method, URL, body). A chain of attempts is one finding; it says how the last one ended,
 * and costs the failed attempts' time. One pass over calls grouped by request.
 */
export const retryAfterFailure: FindingRule = {
  kind: 'retry',
  find({ rows, order, endpointOf, timeline }: FindingInput): Finding[] {
    const groups = groupCalls(order, (index) => requestIdentity(rows[index]!));
    const out: Finding[] = [];
    for (const group of groups) {
      let i = 0;
      while (i < group.length) {
        if (!rows[group[i]!]!.failed) {
          i++;
          continue;
        }
        // From a failure to the first success after it (or the last attempt).
        let j = i + 1;
        while (j < group.length && rows[group[j]!]!.failed) j++;
        const chain = group.slice(i, Math.min(j + 1, group.length));
        i = j + 1;
        if (chain.length < 2) continue;
        const head = rows[chain[0]!]!;
        const last = rows[chain[chain.length - 1]!]!;
        const failedAttempts = chain.filter((index) => rows[index]!.failed);
        const wasted = last.failed ? failedAttempts.slice(0, -1) : failedAttempts;
        const ms = roundMs(timeline.exclusiveMs(wasted));
        const outcome = last.failed ? `still failed (${statusText(last.status)})` : `then answered ${statusText(last.status)}`;
        out.push({
          kind: 'retry',
          message: `retry: ${head.method} ${head.url} failed (${statusText(head.status)}) and was made again ${chain.length === 2 ? 'once' : `${chain.length - 1} times`}, ${outcome}`,
          rows: chain,
          lines: codeLines(rows, chain),
          endpoint: endpointOf[chain[0]!]!,
          saving_ms: ms,
          cost: { ms, calls: wasted.length, bytes: 0 },
        });
      }
    }
    return out;
  },
};

function statusText(status: number | null): string {
  return status === null ? 'no response' : String(status);
}
