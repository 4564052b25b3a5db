import type { Capture, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import type { EndpointStat, Finding, FindingSettings } from '../findings/Finding';
import { DEFAULT_FINDING_SETTINGS } from '../findings/Finding';
import { findingsOf } from '../findings/findingsOf';
import { durationsByEndpoint, endpointStats } from '../findings/endpointStats';

/**
 * Findings of captures as read from a store: the pure rules (findings/) given each endpoint's durations
 * across the stored captures, for the `slow` rule. A reader that lives (the MCP server, the dashboard)
 * keeps one of these: each capture's durations are read once and kept while the capture is in the index
 * (keyed by id and duration: a running command capture stored again with more calls is read again).
 */
/** Captures (with calls) the p95s are taken over, newest first: a bound on what one read of a capture costs. */
export const STATS_CAPTURES = 100;

export class StoreFindings {
  private readonly durations = new Map<string, Map<string, number[]>>();
  /** The last stats made and the captures they were made of: a listing asks once per capture. */
  protected last: { keys: string; stats: Map<string, EndpointStat>; ids: Set<string> } | null = null;

  constructor(
    private readonly store: Store,
    readonly settings: FindingSettings = DEFAULT_FINDING_SETTINGS,
  ) {}

  /** The findings of one capture, every one (those under the floor marked: findings/floor.ts). */
  async of(capture: Capture, index?: readonly IndexRow[]): Promise<Finding[]> {
    const stats = await this.stats(index);
    return this.compute(capture, stats, this.last?.ids.has(capture.id) ?? false, this.last?.keys ?? '');
  }

  /** The rules run over one capture, here on the caller's thread; `statsKey` names the stats (what they were made of). */
  protected compute(capture: Capture, stats: Map<string, EndpointStat>, statsInclude: boolean, _statsKey: string): Promise<Finding[]> {
    return Promise.resolve(findingsOf(capture, this.settings, stats, statsInclude));
  }

  /** Each endpoint's count and p95 across the newest STATS_CAPTURES stored captures with calls. */
  async stats(index?: readonly IndexRow[]): Promise<Map<string, EndpointStat>> {
    const rows = index ?? (await this.store.index());
    const live = new Set<string>();
    const ids = new Set<string>();
    const perCapture: Array<Map<string, number[]>> = [];
    for (const row of rows) {
      if (perCapture.length === STATS_CAPTURES) break;
      if ((row.counts?.http ?? 0) === 0) continue;
      const key = `${row.id}:${row.duration}`;
      live.add(key);
      let durations = this.durations.get(key);
      if (!durations) {
        const capture = await this.store.find(row.id);
        if (!capture) continue;
        durations = durationsByEndpoint(Array.isArray(capture.sections?.http) ? capture.sections.http : []);
        this.durations.set(key, durations);
      }
      perCapture.push(durations);
      ids.add(row.id);
    }
    for (const key of this.durations.keys()) if (!live.has(key)) this.durations.delete(key);
    const keys = [...live].join(',');
    if (this.last?.keys !== keys) this.last = { keys, stats: endpointStats(perCapture), ids };
    return this.last.stats;
  }
}
