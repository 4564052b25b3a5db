import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, endOf, roundMs } from './callFacts';
import { usesResponseOf } from './dependence';

/**
 * Calls to different endpoints made strictly one after another (each starts after the one before ended)
 * where no call uses what an earlier one of the run answered (see dependence.ts): they could have run
 * together. The saving is the run's time minus its longest call's. Calls repeated back to back on one
 * endpoint (loops, retries, duplicates) are the other rules' and break a run.
 */
export const sequentialCalls: FindingRule = {
  kind: 'sequential',
  find({ rows, order }: FindingInput): Finding[] {
    const single = new Set(
      order.filter((index, i) => {
        const endpoint = rows[index]!.endpoint;
        return rows[order[i - 1]!]?.endpoint !== endpoint && rows[order[i + 1]!]?.endpoint !== endpoint;
      }),
    );
    const out: Finding[] = [];
    let run: number[] = [];
    const close = () => {
      if (run.length >= 2) out.push(findingOf(run));
      run = [];
    };
    const findingOf = (members: number[]): Finding => {
      const durations = members.map((index) => rows[index]!.duration ?? 0);
      const total = durations.reduce((sum, value) => sum + value, 0);
      const saving = roundMs(total - Math.max(...durations));
      const names = members.map((index) => rows[index]!.endpoint);
      return {
        kind: 'sequential',
        message: `sequential: ${members.length} independent calls made one after another (${names.join(', ')}); run together they would save about ${saving} ms`,
        rows: members,
        lines: codeLines(rows, members),
        saving_ms: saving,
      };
    };
    for (let i = 0; i < order.length; i++) {
      const index = order[i]!;
      if (!single.has(index)) {
        close();
        continue;
      }
      const row = rows[index]!;
      const previous = run[run.length - 1];
      const joins =
        previous !== undefined &&
        order[i - 1] === previous &&
        row.time >= endOf(rows[previous]!) &&
        !run.some((member) => rows[member]!.endpoint === row.endpoint || usesResponseOf(rows[member]!, row));
      if (!joins) close();
      run.push(index);
    }
    close();
    return out;
  },
};
