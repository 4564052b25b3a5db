import type { Finding, FindingInput, FindingRule } from './Finding';
import { WRITE_METHODS, answerIdentity, codeLines, endOf, plural, requestIdentity, roundMs } from './callFacts';
import { groupCalls } from './groupCalls';

/** Repeats of one request it takes to call them polling (two reads of a resource are not a loop). */
export const POLL_MIN_CALLS = 3;
/** Slack for stored times (rounded each on its own) when telling whether a call started after the one before ended. */
const ROUNDING_MS = 0.5;

/**
 * Polling, named so it is not taken for waste: the same read (method, URL, body) made POLL_MIN_CALLS times or more,
 * one after another (each after the one before ended), whose answers differ (the app asks again because the answer
 * changes: a job until it is done), with no write of the unit to that host in between (a read after each write is
 * the app checking its own change, not waiting). Says how often; gives no advice and costs nothing: listed only
 * when every finding is asked for (floor.ts). Never a duplicate (answers differ) nor an N+1 (one request).
 */
export const polling: FindingRule = {
  kind: 'polling',
  find({ rows, order, endpointOf }: FindingInput): Finding[] {
    const groups = groupCalls(order, (index) => {
      const row = rows[index]!;
      return row.failed || WRITE_METHODS.has(row.method) ? null : requestIdentity(row);
    });
    // Start times of the unit's writes per host, in order: a write inside a group's span explains its changes.
    const writes = new Map<string, number[]>();
    for (const index of order) {
      const row = rows[index]!;
      if (!WRITE_METHODS.has(row.method)) continue;
      const list = writes.get(row.host);
      if (list) list.push(row.time);
      else writes.set(row.host, [row.time]);
    }
    const out: Finding[] = [];
    for (const group of groups) {
      if (group.length < POLL_MIN_CALLS) continue;
      let apart = true;
      let changes = 0;
      for (let i = 1; i < group.length && apart; i++) {
        const before = rows[group[i - 1]!]!;
        const row = rows[group[i]!]!;
        // Starts and durations are stored rounded: a call started as the one before ended may seem to start a hair early.
        apart = row.time >= endOf(before) - ROUNDING_MS;
        if (answerIdentity(row) !== answerIdentity(before)) changes++;
      }
      if (!apart || changes === 0) continue;
      const first = rows[group[0]!]!;
      const last = rows[group[group.length - 1]!]!;
      if (writeWithin(writes.get(first.host), first.time, last.time)) continue;
      const interval = roundMs((last.time - first.time) / (group.length - 1));
      out.push({
        kind: 'polling',
        message: `polling: ${first.method} ${first.url} asked ${plural(group.length, 'time')}, one after another every ${interval} ms on average, its answer changing ${plural(changes, 'time')} (not a duplicate: the answers differ)`,
        rows: group,
        lines: codeLines(rows, group),
        endpoint: endpointOf[group[0]!]!,
        cost: { ms: 0, calls: 0, bytes: 0 },
      });
    }
    return out;
  },
};

/** Whether a write started in (from, to] (binary search: the list is in start order). */
function writeWithin(starts: readonly number[] | undefined, from: number, to: number): boolean {
  if (!starts) return false;
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo < starts.length && starts[lo]! <= to;
}
