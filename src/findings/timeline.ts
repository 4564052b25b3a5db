import type { HttpRow } from '../capture/types';

/** Segments a cost may walk before it is taken as the calls' summed durations instead (bounded work per finding). */
const MAX_WALK = 50_000;

/**
 * When the calls of one capture were in flight: the time line cut at every start and end, with how many calls
 * were in flight in each piece. Built once per capture (n log n); a finding asks what time only its calls held
 * (`exclusiveMs`): that is the time on the unit's critical path they cost, as far as calls show it (time when
 * another call was in flight was not theirs alone).
 */
export class Timeline {
  private readonly points: number[];
  /** Calls in flight from points[i] to points[i + 1]. */
  private readonly inFlight: Int32Array;

  constructor(private readonly rows: readonly HttpRow[]) {
    const all = new Set<number>();
    for (const row of rows) {
      all.add(row.time);
      all.add(endOf(row));
    }
    this.points = [...all].sort((a, b) => a - b);
    const delta = new Int32Array(this.points.length + 1);
    for (const row of rows) {
      if (!(endOf(row) > row.time)) continue;
      delta[this.at(row.time)]!++;
      delta[this.at(endOf(row))]!--;
    }
    this.inFlight = new Int32Array(this.points.length);
    let running = 0;
    for (let i = 0; i < this.points.length; i++) this.inFlight[i] = running += delta[i]!;
  }

  /** Milliseconds when some of `members` were in flight and no other call was. */
  exclusiveMs(members: readonly number[]): number {
    let from = Infinity;
    let to = -Infinity;
    for (const index of members) {
      const row = this.rows[index]!;
      if (endOf(row) <= row.time) continue;
      from = Math.min(from, this.at(row.time));
      to = Math.max(to, this.at(endOf(row)));
    }
    if (!(to > from)) return 0;
    if (to - from > MAX_WALK) return members.reduce((sum, index) => sum + (this.rows[index]!.duration ?? 0), 0);
    const own = new Int32Array(to - from + 1);
    for (const index of members) {
      const row = this.rows[index]!;
      if (endOf(row) <= row.time) continue;
      own[this.at(row.time) - from]!++;
      own[this.at(endOf(row)) - from]!--;
    }
    let total = 0;
    let running = 0;
    for (let i = from; i < to; i++) {
      running += own[i - from]!;
      if (running > 0 && running === this.inFlight[i]) total += this.points[i + 1]! - this.points[i]!;
    }
    return total;
  }

  /** Whether another call was in flight at some time during row `index`. */
  overlapped(index: number): boolean {
    const row = this.rows[index]!;
    if (endOf(row) <= row.time) return false;
    const end = this.at(endOf(row));
    for (let i = this.at(row.time); i < end; i++) if (this.inFlight[i]! > 1) return true;
    return false;
  }

  private at(time: number): number {
    let lo = 0;
    let hi = this.points.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.points[mid]! < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function endOf(row: HttpRow): number {
  return row.time + (row.duration ?? 0);
}
