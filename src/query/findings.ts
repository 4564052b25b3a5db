import type { Capture, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import type { EndpointStat, Finding, FindingSettings } from '../findings/Finding';
import type { EndpointTemplates } from '../builder/endpointTemplates';
import { DEFAULT_FINDING_SETTINGS } from '../findings/Finding';
import { findingsOf } from '../findings/findingsOf';
import { StoreEndpoints, STATS_CAPTURES, type StoreEndpointView } from './storeEndpoints';

export { STATS_CAPTURES };

/**
 * Findings of captures as read from a store: the pure rules (findings/) given what the store's recent captures say
 * of each endpoint (query/storeEndpoints.ts): the templates their call sites vary, folding this capture's endpoints
 * too, and each endpoint's durations, for the `slow` rule. A reader that lives (the MCP server, the dashboard)
 * keeps one of these: each capture is read once and kept while it is in the index.
 */
export class StoreFindings {
  /** The store's endpoints, shared with the reader's other uses (grouping, diff alignment). */
  readonly endpoints: StoreEndpoints;

  constructor(
    store: Store,
    readonly settings: FindingSettings = DEFAULT_FINDING_SETTINGS,
    endpoints?: StoreEndpoints,
  ) {
    this.endpoints = endpoints ?? new StoreEndpoints(store);
  }

  /** The findings of one capture, every one (those under the floor marked: findings/floor.ts). */
  async of(capture: Capture, index?: readonly IndexRow[]): Promise<Finding[]> {
    const view = await this.endpoints.view(index);
    return this.compute(capture, view.stats, view.ids.has(capture.id), view.key, view.templates);
  }

  /** The rules run over one capture, here on the caller's thread; `statsKey` names the stats (what they were made of). */
  protected compute(
    capture: Capture,
    stats: Map<string, EndpointStat>,
    statsInclude: boolean,
    _statsKey: string,
    templates?: EndpointTemplates,
  ): Promise<Finding[]> {
    return Promise.resolve(findingsOf(capture, this.settings, stats, statsInclude, templates));
  }

  /** Each endpoint's count and p95 across the newest stored captures with calls (StoreEndpoints). */
  async stats(index?: readonly IndexRow[]): Promise<Map<string, EndpointStat>> {
    return (await this.endpoints.view(index)).stats;
  }

  /** What the store's recent captures say of their endpoints. */
  view(index?: readonly IndexRow[]): Promise<StoreEndpointView> {
    return this.endpoints.view(index);
  }
}
