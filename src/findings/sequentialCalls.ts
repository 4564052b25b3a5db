import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, roundMs } from './callFacts';

/**
 * Calls to different endpoints made strictly one after another, none of them while any other call of the unit
 * was in flight (a pool that keeps N calls going is concurrency the app chose, not this), where no call carries a
 * value an earlier one of the run answered (`uses`: a token, an id, a cursor, found before masking): they could
 * have run together. The saving is the run's time minus its longest call's. Calls repeated back to back on one
 * endpoint (loops, retries, duplicates) are the other rules' and break a run.
 */
export const sequentialCalls: FindingRule = {
  kind: 'sequential',
  find({ rows, order, endpointOf, usesOf, timeline }: FindingInput): Finding[] {
    const out: Finding[] = [];
    let run: number[] = [];
    const close = () => {
      if (run.length >= 2) out.push(findingOf(run));
      run = [];
    };
    const findingOf = (members: number[]): Finding => {
      const durations = members.map((index) => rows[index]!.duration ?? 0);
      const total = durations.reduce((sum, value) => sum + value, 0);
      const ms = roundMs(total - Math.max(...durations));
      const names = members.map((index) => endpointOf[index]!);
      return {
        kind: 'sequential',
        message: `sequential: ${members.length} independent calls made one after another (${names.join(', ')}); run together they would save about ${ms} ms`,
        rows: members,
        lines: codeLines(rows, members),
        saving_ms: ms,
        cost: { ms, calls: 0, bytes: 0 },
      };
    };
    const inRun = new Set<number>();
    const endpointsInRun = new Set<string>();
    for (let i = 0; i < order.length; i++) {
      const index = order[i]!;
      const endpoint = endpointOf[index]!;
      const alone =
        endpointOf[order[i - 1]!] !== endpoint && endpointOf[order[i + 1]!] !== endpoint && rows[index]!.duration !== null && !timeline.overlapped(index);
      if (!alone) {
        close();
        inRun.clear();
        endpointsInRun.clear();
        continue;
      }
      const previous = run[run.length - 1];
      const joins =
        previous !== undefined && order[i - 1] === previous && !endpointsInRun.has(endpoint) && !usesOf[index]!.some((earlier) => inRun.has(earlier));
      if (!joins) {
        close();
        inRun.clear();
        endpointsInRun.clear();
      }
      run.push(index);
      inRun.add(index);
      endpointsInRun.add(endpoint);
    }
    close();
    return out;
  },
};
