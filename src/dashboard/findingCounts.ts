import { shownFindings } from '../findings/floor';
import type { IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import type { StoreFindings } from '../query/findings';
import type { FindingCount } from './findingCount';

/**
 * The findings of every listed capture, counted for the list's column and filter (`/api/findings`). Each
 * capture is read once and its count kept while it is in the index (keyed by id and duration: a command
 * capture stored again with more calls is counted again). Between two captures the work yields to the event
 * loop, so a listing of many new captures never holds up the dashboard's other requests.
 */
export class FindingCounts {
  private readonly counted = new Map<string, FindingCount>();

  constructor(
    private readonly store: Store,
    private readonly findings: StoreFindings,
  ) {}

  async of(index: readonly IndexRow[]): Promise<Record<string, FindingCount>> {
    const out: Record<string, FindingCount> = {};
    const live = new Set<string>();
    for (const row of index) {
      if ((row.counts?.http ?? 0) === 0) continue;
      const key = `${row.id}:${row.duration}`;
      live.add(key);
      let count = this.counted.get(key);
      if (!count) {
        const capture = await this.store.find(row.id);
        if (!capture) continue;
        // As `probe list --findings` counts them: those under the cost floor are not shown by default.
        const found = shownFindings(await this.findings.of(capture, index)).shown;
        count = { count: found.length, kinds: found.map((finding) => finding.kind) };
        this.counted.set(key, count);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      out[row.id] = count;
    }
    for (const key of this.counted.keys()) if (!live.has(key)) this.counted.delete(key);
    return out;
  }
}
