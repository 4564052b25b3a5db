/** One call as the link finder reads it: when it started and ended, what it sent and what its answer carried. */
export interface LinkedCall {
  start: number;
  /** Null: never answered. */
  end: number | null;
  sent: readonly string[];
  answered: readonly string[];
}

/**
 * A value answered by more calls than this is common (a status word, a shared tenant id): it proves nothing, and
 * is not counted as a link.
 */
export const COMMON_ANSWERS = 8;

/**
 * For each call, the earlier calls whose answer carried a value the call then sent (only answers that ended
 * before it started count: what the app could have used; and only values the app had not sent before that answer
 * came). One pass in start order with a map from value to the
 * calls that answered it: O(calls + values), never call against call.
 */
export function linkByValues(calls: readonly LinkedCall[]): number[][] {
  const byStart = calls.map((_, index) => index).sort((a, b) => calls[a]!.start - calls[b]!.start || a - b);
  const byEnd = calls
    .map((_, index) => index)
    .filter((index) => calls[index]!.end !== null)
    .sort((a, b) => calls[a]!.end! - calls[b]!.end! || a - b);
  // Only values some call sent can link calls: the map holds those, not every value of every answer.
  const wanted = new Set<string>();
  for (const call of calls) for (const value of call.sent) wanted.add(value);
  const answeredBy = new Map<string, number[]>();
  // When the app first sent each value: one it sent before an answer arrived (a collection name, its own id, echoed
  // back) was the app's before the answer, and is no sign it used the answer.
  const firstSent = new Map<string, number>();
  const out: number[][] = calls.map(() => []);
  let ended = 0;
  for (const index of byStart) {
    const call = calls[index]!;
    // Answers in by the time this call started.
    for (; ended < byEnd.length && calls[byEnd[ended]!]!.end! <= call.start; ended++) {
      const answering = byEnd[ended]!;
      const answeredAt = calls[answering]!.end!;
      for (const value of calls[answering]!.answered) {
        if (!wanted.has(value)) continue;
        const known = firstSent.get(value);
        if (known !== undefined && known < answeredAt) continue;
        const list = answeredBy.get(value);
        if (!list) answeredBy.set(value, [answering]);
        else if (list.length <= COMMON_ANSWERS && list[list.length - 1] !== answering) list.push(answering);
      }
    }
    const uses = new Set<number>();
    for (const value of call.sent) {
      const list = answeredBy.get(value);
      if (!list || list.length > COMMON_ANSWERS) continue;
      for (const earlier of list) if (earlier !== index) uses.add(earlier);
    }
    if (uses.size) out[index] = [...uses].sort((a, b) => a - b);
    for (const value of call.sent) if (!firstSent.has(value)) firstSent.set(value, call.start);
  }
  return out;
}
