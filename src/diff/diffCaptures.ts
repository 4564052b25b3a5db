import type { Capture, HttpRow } from '../capture/types';
import { alignSequences } from './alignSequences';
import { templateEndpoints, type EndpointTemplates } from '../builder/endpointTemplates';
import { jsonChanges, type FieldChange } from './jsonChanges';
import { DEFAULT_THRESHOLD, type CallChange, type CallRef, type DiffResult, type DiffSide, type DiffThreshold } from './Diff';

/**
 * What changed from one capture to another: their calls aligned as sequences of endpoints (Myers' diff,
 * so a call added in the middle leaves the rest aligned), then each aligned pair compared field by field.
 * Pure.
 */
export function diffCaptures(
  before: Capture,
  after: Capture,
  options: { threshold?: DiffThreshold; baselines?: { before?: string; after?: string }; templates?: EndpointTemplates } = {},
): DiffResult {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  const a = rowsOf(before);
  const b = rowsOf(after);
  const orderA = startOrder(a);
  const orderB = startOrder(b);
  // Endpoints as the call sites of both captures (and of the stored ones, `templates`) vary them
  // (builder/endpointTemplates.ts): `/products/SKU-1…3` before and `/products/SKU-4…6` after align call for call.
  const endpoints = templateEndpoints([...a, ...b], options.templates);
  const pairs = alignSequences(
    orderA.map((index) => endpoints[index]!),
    orderB.map((index) => endpoints[a.length + index]!),
  );
  const matchedA = new Set(pairs.map(([i]) => i));
  const matchedB = new Set(pairs.map(([, j]) => j));
  const removed = orderA.filter((_, i) => !matchedA.has(i)).map((index) => callRef(a[index]!, index));
  const added = orderB.filter((_, j) => !matchedB.has(j)).map((index) => callRef(b[index]!, index));
  const changed: CallChange[] = [];
  for (const [i, j] of pairs) {
    const change = compareCalls(a[orderA[i]!]!, orderA[i]!, b[orderB[j]!]!, orderB[j]!, threshold);
    if (change) changed.push(change);
  }
  const repeated = repeatedEndpoints(a, b);
  const status = before.status !== after.status ? { before: before.status, after: after.status } : undefined;
  return {
    same: !status && added.length === 0 && removed.length === 0 && changed.length === 0,
    before: side(before, a.length, options.baselines?.before),
    after: side(after, b.length, options.baselines?.after),
    threshold: { ms: threshold.ms, percent: threshold.percent },
    ...(status ? { status } : {}),
    matched: pairs.length,
    added,
    removed,
    repeated,
    changed,
  };
}

function rowsOf(capture: Capture): HttpRow[] {
  return Array.isArray(capture.sections?.http) ? capture.sections.http : [];
}

function startOrder(rows: readonly HttpRow[]): number[] {
  return rows.map((_, index) => index).sort((x, y) => rows[x]!.time - rows[y]!.time || x - y);
}

function side(capture: Capture, calls: number, baseline: string | undefined): DiffSide {
  return {
    id: capture.id,
    type: capture.type,
    name: capture.name,
    status: capture.status,
    started_at: capture.started_at,
    duration: capture.duration,
    calls,
    ...(baseline !== undefined ? { baseline } : {}),
  };
}

function lineOf(row: HttpRow): string | null {
  return row.origin ? `${row.origin.file}:${row.origin.line}` : null;
}

function callRef(row: HttpRow, index: number): CallRef {
  return { row: index, method: row.method, url: row.url, endpoint: row.endpoint, status: row.status, line: lineOf(row) };
}

function repeatedEndpoints(a: readonly HttpRow[], b: readonly HttpRow[]): DiffResult['repeated'] {
  const count = (rows: readonly HttpRow[]) => {
    const out = new Map<string, number>();
    for (const row of rows) out.set(row.endpoint, (out.get(row.endpoint) ?? 0) + 1);
    return out;
  };
  const left = count(a);
  const right = count(b);
  const out: DiffResult['repeated'] = [];
  for (const [endpoint, before] of left) {
    const after = right.get(endpoint);
    if (after !== undefined && after !== before) out.push({ endpoint, before, after });
  }
  return out;
}

function innermostMessage(row: HttpRow): string | null {
  const exception = row.exception;
  if (!exception) return null;
  const chain = exception.previous ?? [];
  return chain.length ? chain[chain.length - 1]!.message : exception.message;
}

function compareCalls(a: HttpRow, aRow: number, b: HttpRow, bRow: number, threshold: DiffThreshold): CallChange | null {
  const change: CallChange = { before_row: aRow, after_row: bRow, method: b.method, endpoint: b.endpoint, line: lineOf(b) ?? lineOf(a) };
  let differs = false;
  if (a.url !== b.url) {
    change.url = { before: a.url, after: b.url };
    differs = true;
  }
  if (a.status !== b.status) {
    change.status = { before: a.status, after: b.status };
    differs = true;
  }
  const grpcA = grpcStatusText(a);
  const grpcB = grpcStatusText(b);
  if (grpcA !== grpcB) {
    change.grpc_status = { before: grpcA, after: grpcB };
    differs = true;
  }
  const failureA = innermostMessage(a);
  const failureB = innermostMessage(b);
  if (failureA !== failureB) {
    change.exception = { before: failureA, after: failureB };
    differs = true;
  }
  if (durationChanged(a.duration, b.duration, threshold)) {
    change.duration = { before: a.duration, after: b.duration };
    differs = true;
  }
  const fields = (key: 'request_headers' | 'request_payload' | 'response', changes: FieldChange[]) => {
    if (changes.length === 0) return;
    change[key] = changes;
    differs = true;
  };
  fields('request_headers', headerChanges(a.request_headers, b.request_headers));
  fields('request_payload', jsonChanges(a.request_payload ?? undefined, b.request_payload ?? undefined, '$'));
  fields('response', responseChanges(a, b));
  return differs ? change : null;
}

function grpcStatusText(row: HttpRow): string | null {
  return row.grpc_status ? `${row.grpc_status.code} ${row.grpc_status.name}` : null;
}

function durationChanged(before: number | null, after: number | null, threshold: DiffThreshold): boolean {
  if (before === null || after === null) return false;
  const delta = Math.abs(after - before);
  return delta >= threshold.ms && delta >= (before * threshold.percent) / 100;
}

/** Headers by name: each name is its own path. */
function headerChanges(before: Record<string, string> | undefined, after: Record<string, string> | undefined): FieldChange[] {
  const out: FieldChange[] = [];
  const left = before ?? {};
  const right = after ?? {};
  for (const name of Object.keys(left)) {
    if (!(name in right)) out.push({ path: name, before: left[name] });
    else if (left[name] !== right[name]) out.push({ path: name, before: left[name], after: right[name] });
  }
  for (const name of Object.keys(right)) if (!(name in left)) out.push({ path: name, after: right[name] });
  return out;
}

/** The response as its capture shows it (JSON fields), else its kept body as one value. */
function responseChanges(a: HttpRow, b: HttpRow): FieldChange[] {
  const cardsA = a.response_capture?.cards;
  const cardsB = b.response_capture?.cards;
  if (cardsA !== undefined || cardsB !== undefined) return jsonChanges(cardsA, cardsB, '$');
  if (a.response_body !== b.response_body) return [{ path: 'body', before: a.response_body, after: b.response_body }];
  return [];
}
