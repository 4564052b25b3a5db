import type { Capture, HttpRow, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import type { EndpointStat } from '../findings/Finding';
import { durationsByEndpoint, endpointStats } from '../findings/endpointStats';
import {
  foldEndpoint,
  learnTemplates,
  mergeTemplateEvidence,
  templateEvidence,
  type EndpointTemplates,
  type TemplateEvidence,
} from '../builder/endpointTemplates';

/** Captures (with calls) read, newest first: a bound on what one read of the store costs. */
export const STATS_CAPTURES = 100;
/** Calls read across those captures: no capture is read past this many (the newest is always read). */
export const STATS_CALLS = 20_000;

/** What the store's recent captures say of their endpoints. */
export interface StoreEndpointView {
  /** Endpoint templates learned across the captures read: call sites that vary a path segment across captures too. */
  templates: EndpointTemplates;
  /** Per endpoint (folded by `templates`), the durations of its calls. */
  stats: Map<string, EndpointStat>;
  /** The captures read. */
  ids: Set<string>;
  /** Names what the view was made of (ids and versions). */
  key: string;
}

interface Kept {
  durations: Map<string, number[]>;
  evidence: TemplateEvidence;
}

/**
 * The endpoints of the newest stored captures, as one source for every reading that folds or compares endpoints:
 * findings (`slow`: the other calls of an endpoint), `probe rows --group-by endpoint`, the dashboard's rows and
 * `probe diff`'s alignment. A call site that makes one call per capture (`GET /products/SKU-1` in one request,
 * `/products/SKU-2` in the next) is learned as `/products/{id}`, its calls counted together.
 * Reads the newest STATS_CAPTURES captures with calls, up to STATS_CALLS calls in all; each is read once and kept
 * (its durations per endpoint and its call sites' template evidence: small) while it is in the index, keyed by id
 * and duration (a running command's capture stored again with more calls is read again). Linear in what is read.
 */
export class StoreEndpoints {
  private readonly kept = new Map<string, Kept>();
  private last: StoreEndpointView | null = null;

  constructor(private readonly store: Store) {}

  async view(index?: readonly IndexRow[]): Promise<StoreEndpointView> {
    const rows = index ?? (await this.store.index());
    const live = new Set<string>();
    const ids = new Set<string>();
    const read: Kept[] = [];
    let calls = 0;
    for (const row of rows) {
      if (read.length === STATS_CAPTURES) break;
      const count = row.counts?.http ?? 0;
      if (count === 0) continue;
      if (read.length > 0 && calls + count > STATS_CALLS) break;
      const key = `${row.id}:${row.duration}`;
      live.add(key);
      let kept = this.kept.get(key);
      if (!kept) {
        const capture = await this.store.find(row.id);
        if (!capture) continue;
        const http = Array.isArray(capture.sections?.http) ? capture.sections.http : [];
        kept = { durations: durationsByEndpoint(http), evidence: templateEvidence(http) };
        this.kept.set(key, kept);
      }
      calls += count;
      read.push(kept);
      ids.add(row.id);
    }
    for (const key of this.kept.keys()) if (!live.has(key)) this.kept.delete(key);
    const key = [...live].join(',');
    if (this.last?.key !== key) this.last = { ...storeView(read), ids, key };
    return this.last;
  }
}

/** The view of some captures' calls, without a store (each capture's `http` rows; the newest first). */
export function endpointViewOf(captures: ReadonlyArray<readonly HttpRow[]>): Pick<StoreEndpointView, 'templates' | 'stats'> {
  return storeView(captures.map((http) => ({ durations: durationsByEndpoint(http), evidence: templateEvidence(http) })));
}

/** Templates learned from every capture's evidence together; durations keyed by the endpoints they fold to. */
function storeView(read: readonly Kept[]): Pick<StoreEndpointView, 'templates' | 'stats'> {
  const evidence: TemplateEvidence = new Map();
  for (const kept of read) mergeTemplateEvidence(evidence, kept.evidence);
  const templates = learnTemplates(evidence);
  const folded = read.map((kept) => {
    const out = new Map<string, number[]>();
    for (const [endpoint, durations] of kept.durations) {
      const key = foldEndpoint(templates, endpoint);
      const list = out.get(key);
      if (!list) out.set(key, [...durations]);
      else for (const duration of durations) list.push(duration);
    }
    return out;
  });
  return { templates, stats: endpointStats(folded) };
}

/**
 * The capture with its calls' endpoints folded by the store's templates, for a reader that groups rows itself (the
 * dashboard): the capture as stored is left as it is (a store may hand out the object it keeps).
 */
export function withStoreEndpoints(capture: Capture, templates: EndpointTemplates): Capture {
  const http = capture.sections?.http;
  if (!Array.isArray(http) || templates.templates.size === 0) return capture;
  let changed = false;
  const rows = http.map((row) => {
    const endpoint = typeof row?.endpoint === 'string' ? foldEndpoint(templates, row.endpoint) : undefined;
    if (endpoint === undefined || endpoint === row.endpoint) return row;
    changed = true;
    return { ...row, endpoint };
  });
  return changed ? { ...capture, sections: { ...capture.sections, http: rows } } : capture;
}
