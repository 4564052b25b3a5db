import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, requestIdentity } from './callFacts';

/**
 * A call retried after a failure: a failed call (an error status or no response) followed later in the unit
 * by the same call (method, URL, body). A chain of attempts is one finding; it says how the last one ended.
 */
export const retryAfterFailure: FindingRule = {
  kind: 'retry',
  find({ rows, order }: FindingInput): Finding[] {
    const out: Finding[] = [];
    const taken = new Set<number>();
    for (let i = 0; i < order.length; i++) {
      const first = order[i]!;
      if (taken.has(first) || !rows[first]!.failed) continue;
      const identity = requestIdentity(rows[first]!);
      if (identity === null) continue;
      const chain = [first];
      for (let j = i + 1; j < order.length; j++) {
        const next = order[j]!;
        if (requestIdentity(rows[next]!) !== identity) continue;
        chain.push(next);
        if (!rows[next]!.failed) break;
      }
      if (chain.length < 2) continue;
      for (const index of chain) taken.add(index);
      const head = rows[first]!;
      const last = rows[chain[chain.length - 1]!]!;
      const outcome = last.failed ? `still failed (${statusText(last.status)})` : `then answered ${statusText(last.status)}`;
      out.push({
        kind: 'retry',
        message: `retry: ${head.method} ${head.url} failed (${statusText(head.status)}) and was made again ${chain.length === 2 ? 'once' : `${chain.length - 1} times`}, ${outcome}`,
        rows: chain,
        lines: codeLines(rows, chain),
        endpoint: head.endpoint,
      });
    }
    return out;
  },
};

function statusText(status: number | null): string {
  return status === null ? 'no response' : String(status);
}
