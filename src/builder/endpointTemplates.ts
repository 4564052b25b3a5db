import type { HttpRow } from '../capture/types';

/** The parts of a row a template is learned from. */
export type TemplateRow = Pick<HttpRow, 'endpoint' | 'origin' | 'failed' | 'response_capture'>;

/** Paths longer than this are left as they are (no id hides that deep, and the work per row stays bounded). */
const MAX_SEGMENTS = 16;

/**
 * What rows teach about their call sites' endpoints, one entry per call site, method and host, and path length:
 * the first path seen, the segment that varies, the answers' shape. Small, and mergeable (mergeTemplateEvidence):
 * what a reader keeps of each stored capture, so a call site that makes one call per capture (`/products/SKU-1`
 * in one request, `/products/SKU-2` in the next) is learned across captures as within one.
 */
export type TemplateEvidence = Map<string, SiteEvidence>;

export interface SiteEvidence {
  head: string;
  first: string[];
  /** The one segment that varies; -1 none yet; -2 more than one. */
  varying: number;
  /** The answers' shape; undefined none seen yet; null answers of different shapes. */
  shape: string | null | undefined;
}

/** Templates learned: the folded paths, and per head and path length the positions folded. Plain data (a thread can be sent them). */
export interface EndpointTemplates {
  positions: Map<string, number[]>;
  templates: Set<string>;
}

/**
 * Endpoints with the path segment that varies between calls of one call site folded to `{id}`, whatever the
 * segment looks like (`SKU-1`, `ada@example.com`, `cus_9aF`, a slug): a loop or helper calling
 * `/products/<anything>` from one code line (the same origin chain) calls one endpoint. Learned where:
 * - the calls share a call site, a method, a scheme and host, and a number of path segments;
 * - exactly one segment varies, and it is not the first (`/<id>` alone could as well be `/config`, `/profile`);
 * - their JSON answers (those that succeeded) have one shape (the same top-level keys): a loop over
 *   `['config', 'profile']` through one helper answers different things and stays two endpoints.
 * A template learned from one call site then folds every row whose path matches it. O(rows × segments).
 * Rows are given in any order; any set of rows works (one capture, or several of one call site). `known`:
 * templates learned elsewhere (the stored captures': query/storeEndpoints.ts), folding further.
 */
export function templateEndpoints(rows: readonly TemplateRow[], known?: EndpointTemplates): string[] {
  const own = learnTemplates(templateEvidence(rows));
  return rows.map((row) => {
    const endpoint = foldEndpoint(own, row.endpoint);
    return known ? foldEndpoint(known, endpoint) : endpoint;
  });
}

/** The evidence of some rows (any order). O(rows × segments). */
export function templateEvidence(rows: readonly TemplateRow[]): TemplateEvidence {
  const groups: TemplateEvidence = new Map();
  for (const row of rows) {
    const parts = splitEndpoint(row.endpoint);
    if (!parts || !row.origin) continue;
    const site = row.origin.chain.length ? row.origin.chain.join('\n') : `${row.origin.file}:${row.origin.line}`;
    const key = `${site}\n${parts.head}\n${parts.segments.length}`;
    const shape = row.failed ? undefined : answerShape(row);
    const group = groups.get(key);
    if (!group) groups.set(key, { head: parts.head, first: parts.segments, varying: -1, shape });
    else addEvidence(group, parts.segments, -1, shape);
  }
  return groups;
}

/**
 * `into` gains `from`'s evidence: the same as if the rows of both had been read together (a row of `from` differs
 * from `into`'s first path where it differs from `from`'s first path or where that one differs from `into`'s).
 * O(entries of `from` × segments).
 */
export function mergeTemplateEvidence(into: TemplateEvidence, from: ReadonlyMap<string, SiteEvidence>): void {
  for (const [key, site] of from) {
    const group = into.get(key);
    if (!group) into.set(key, { ...site });
    else addEvidence(group, site.first, site.varying, site.shape);
  }
}

function addEvidence(group: SiteEvidence, segments: readonly string[], varying: number, shape: string | null | undefined): void {
  if (shape === null) group.shape = null;
  else if (shape !== undefined) {
    if (group.shape === undefined) group.shape = shape;
    else if (group.shape !== shape) group.shape = null;
  }
  if (group.varying === -2) return;
  if (varying === -2) {
    group.varying = -2;
    return;
  }
  const vary = (p: number) => {
    if (p === group.varying) return;
    group.varying = group.varying === -1 ? p : -2;
  };
  if (varying >= 0) vary(varying);
  for (let p = 0; p < segments.length && group.varying !== -2; p++) if (segments[p] !== group.first[p]) vary(p);
}

/** The templates the evidence proves. */
export function learnTemplates(evidence: ReadonlyMap<string, SiteEvidence>): EndpointTemplates {
  const positions = new Map<string, number[]>();
  const templates = new Set<string>();
  for (const group of evidence.values()) {
    // Segment 0 is the empty text before the path's first `/`; 1 is the first segment.
    if (group.varying < 2 || group.shape === null) continue;
    const bucket = `${group.head}\n${group.first.length}`;
    const known = positions.get(bucket);
    if (!known) positions.set(bucket, [group.varying]);
    else if (!known.includes(group.varying)) known.push(group.varying);
    templates.add(`${group.head}${folded(group.first, group.varying)}`);
  }
  return { positions, templates };
}

/** An endpoint folded by the first template it matches; itself when none does. */
export function foldEndpoint(templates: EndpointTemplates, endpoint: string): string {
  if (templates.templates.size === 0) return endpoint;
  const parts = splitEndpoint(endpoint);
  const known = parts && templates.positions.get(`${parts.head}\n${parts.segments.length}`);
  if (!parts || !known) return endpoint;
  for (const p of known) {
    const candidate = `${parts.head}${folded(parts.segments, p)}`;
    if (templates.templates.has(candidate)) return candidate;
  }
  return endpoint;
}

function folded(segments: readonly string[], at: number): string {
  return segments.map((segment, p) => (p === at ? '{id}' : segment)).join('/');
}

/** `GET http://host` and the path's segments (`['', 'products', 'SKU-1']`); null for an endpoint without a path. */
function splitEndpoint(endpoint: string): { head: string; segments: string[] } | null {
  const scheme = endpoint.indexOf('://');
  if (scheme < 0) return null;
  const slash = endpoint.indexOf('/', scheme + 3);
  if (slash < 0) return null;
  const segments = endpoint.slice(slash).split('/');
  if (segments.length > MAX_SEGMENTS) return null;
  return { head: endpoint.slice(0, slash), segments };
}

/** The top-level keys of a JSON answer (of its first item when a list); `-` for an answer that is not an object. */
function answerShape(row: TemplateRow): string {
  let value = row.response_capture?.cards;
  if (Array.isArray(value)) value = value[0];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '-';
  const keys = Object.keys(value);
  if (keys.length > 64) keys.length = 64;
  return keys.sort().join(',');
}
