import type { HttpRow } from '../capture/types';

/** The parts of a row a template is learned from. */
export type TemplateRow = Pick<HttpRow, 'endpoint' | 'origin' | 'failed' | 'response_capture'>;

/** Paths longer than this are left as they are (no id hides that deep, and the work per row stays bounded). */
const MAX_SEGMENTS = 16;

/**
 * Endpoints with the path segment that varies between calls of one call site folded to `{id}`, whatever the
 * segment looks like (`SKU-1`, `ada@example.com`, `cus_9aF`, a slug): a loop or helper calling
 * `/products/<anything>` from one code line (the same origin chain) calls one endpoint. Learned where:
 * - the calls share a call site, a method, a scheme and host, and a number of path segments;
 * - exactly one segment varies, and it is not the first (`/<id>` alone could as well be `/config`, `/profile`);
 * - their JSON answers (those that succeeded) have one shape (the same top-level keys): a loop over
 *   `['config', 'profile']` through one helper answers different things and stays two endpoints.
 * A template learned from one call site then folds every row whose path matches it. O(rows × segments).
 * Rows are given in any order; any set of rows works (one capture, or several of one call site).
 */
export function templateEndpoints(rows: readonly TemplateRow[]): string[] {
  interface Group {
    head: string;
    first: string[];
    /** The one segment that varies; -1 none yet; -2 more than one. */
    varying: number;
    /** The answers' shape; undefined none seen yet; null answers of different shapes. */
    shape: string | null | undefined;
  }
  const parsed = rows.map((row) => splitEndpoint(row.endpoint));
  const groups = new Map<string, Group>();
  for (let i = 0; i < rows.length; i++) {
    const parts = parsed[i];
    const row = rows[i]!;
    if (!parts || !row.origin) continue;
    const site = row.origin.chain.length ? row.origin.chain.join('\n') : `${row.origin.file}:${row.origin.line}`;
    const key = `${site}\n${parts.head}\n${parts.segments.length}`;
    const shape = row.failed ? undefined : answerShape(row);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { head: parts.head, first: parts.segments, varying: -1, shape });
      continue;
    }
    if (shape !== undefined) {
      if (group.shape === undefined) group.shape = shape;
      else if (group.shape !== shape) group.shape = null;
    }
    if (group.varying === -2) continue;
    for (let p = 0; p < parts.segments.length; p++) {
      if (parts.segments[p] === group.first[p] || p === group.varying) continue;
      group.varying = group.varying === -1 ? p : -2;
      if (group.varying === -2) break;
    }
  }
  // Templates by head and segment count: the positions folded, and the folded paths.
  const positions = new Map<string, Set<number>>();
  const templates = new Set<string>();
  for (const group of groups.values()) {
    // Segment 0 is the empty text before the path's first `/`; 1 is the first segment.
    if (group.varying < 2 || group.shape === null) continue;
    const head = group.head;
    const bucket = `${head}\n${group.first.length}`;
    let known = positions.get(bucket);
    if (!known) positions.set(bucket, (known = new Set()));
    known.add(group.varying);
    templates.add(`${head}${folded(group.first, group.varying)}`);
  }
  if (templates.size === 0) return rows.map((row) => row.endpoint);
  return rows.map((row, i) => {
    const parts = parsed[i];
    const known = parts && positions.get(`${parts.head}\n${parts.segments.length}`);
    if (!parts || !known) return row.endpoint;
    for (const p of known) {
      const candidate = `${parts.head}${folded(parts.segments, p)}`;
      if (templates.has(candidate)) return candidate;
    }
    return row.endpoint;
  });
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
