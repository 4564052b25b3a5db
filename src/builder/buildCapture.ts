import type { Capture, CaptureSpan, HttpRow, RequestSection, Summary } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import type { Masker } from '../mask/Masker';
import type { CallInput, FoldedCallsInput, UnitInput } from './input';
import { buildHttpRow } from './httpRow';
import type { RowCache } from './RowCache';
import { parseUrl } from './endpoint';
import { emptyFold, foldCall, mergeFold } from './fold';
import { threadWork } from '../util/threadWork';
import { notedCallValues } from './callValues';
import { linkByValues } from './valueLinks';
import { templateEndpoints } from './endpointTemplates';

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * Turns one recorded unit of work into a stored capture record: masking, rows, summary, spans. Pure. With `rows`,
 * the rows of ended calls come from that cache (built once for every version of a long unit: RowCache).
 */
export function buildCapture(unit: UnitInput, config: ResolvedConfig, rows?: RowCache): Capture {
  threadWork.builds++;
  const lens = config.http;
  const calls = [...unit.calls].sort((a, b) => a.start - b.start);
  const httpRows: HttpRow[] = [];
  const rowOf = new Map<CallInput, number>();
  const folded = unit.folded;
  let dropped = folded?.count ?? 0;
  if (lens) {
    for (const call of calls) {
      if (httpRows.length >= lens.max_rows) {
        dropped++;
        continue;
      }
      rowOf.set(call, httpRows.length);
      httpRows.push(rows ? rows.rowOf(call, unit.startedAt, unit.endedAt, lens) : buildHttpRow(call, unit.startedAt, unit.endedAt, lens));
    }
  }

  if (lens) linkRows(calls, httpRows, rows);

  // Totals and pool bounds: every call this unit still holds, kept as a row or not, and those folded before,
  // in start order (the error lines name the first failures): the rows' calls started first, then the
  // folded ones (finished past the cap), then the rest still held.
  const counted = emptyFold();
  const masker = (lens ?? config).masker;
  // A name may quote a URL with its password (a command's arguments, a span's name): masked as text.
  const name = masker.text(unit.name);
  const kept = Math.min(httpRows.length, calls.length);
  for (let i = 0; i < kept; i++) foldCall(counted, calls[i]!, unit.endedAt, masker);
  if (folded) mergeFold(counted, folded);
  for (let i = kept; i < calls.length; i++) foldCall(counted, calls[i]!, unit.endedAt, masker);

  const summary: Summary = { errors: [], warnings: [] };
  if (lens && counted.count > 0) {
    summary.errors.push(...counted.errors);
    summary.totals = { http_ms: round(counted.ms), http_by_host: counted.byHost, http_calls: counted.count, http_failed: counted.failed };
  }
  if (dropped) summary.dropped_rows = dropped;

  const sections: Capture['sections'] = {};
  if (unit.request) sections.request = requestSection(unit, config.masker);
  if (lens) sections.http = httpRows;

  return {
    schema_version: 1,
    id: unit.id,
    type: unit.type,
    name,
    status: unit.status,
    service: unit.meta.service,
    label: unit.label,
    tags: [...new Set(unit.tags)],
    parent_id: unit.parentId,
    trace_id: unit.traceId,
    linked_via: unit.linkedVia,
    started_at: unit.startedAt / 1000,
    ended_at: unit.endedAt / 1000,
    duration: round(unit.endedAt - unit.startedAt),
    ended_by: unit.endedBy,
    job_id: unit.jobId,
    meta: { ...unit.meta },
    summary,
    spans: buildSpans(unit, name, calls, rowOf, httpRows, counted.pools, masker),
    sections,
  };
}

/**
 * Each row's `uses` (the earlier rows whose answers' values its request carried, read before masking) and its
 * endpoint's template (path segments that vary between calls of one call site: builder/endpointTemplates.ts).
 * Both are stable for an ended call, so a row the RowCache keeps gets the same values each version.
 */
function linkRows(calls: CallInput[], rows: HttpRow[], cache?: RowCache): void {
  const linked = rows.map((row, index) => {
    const values = notedCallValues(calls[index]!);
    const end = calls[index]!.end;
    return { start: calls[index]!.start, end: end ?? null, sent: values?.sent ?? [], answered: values?.answered ?? [] };
  });
  const uses = linkByValues(linked);
  const endpoints = templateEndpoints(rows);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    // A row kept from an earlier version whose window of calls started elsewhere numbers its links anew.
    const before = row.uses ?? [];
    const now = uses[i]!;
    const same = before.length === now.length && before.every((value, k) => value === now[k]);
    if (!same) {
      if (now.length) row.uses = now;
      else delete row.uses;
    }
    const moved = endpoints[i] !== row.endpoint;
    if (moved) row.endpoint = endpoints[i]!;
    if (!same || moved) cache?.changed(row);
  }
}

/**
 * The incoming request. Its path is read from the masked URL, never from the URL as received: a credential in a
 * path (`/magic/<JWT>`, `/gh/ghp_…`) is masked there as in `url`. The route is masked as text like the name (a
 * framework may report the path itself as its route).
 */
function requestSection(unit: UnitInput, masker: Masker): RequestSection {
  const request = unit.request!;
  const url = masker.url(request.url);
  return {
    method: request.method.toUpperCase(),
    url,
    path: parseUrl(url)?.pathname ?? url.split(/[?#]/)[0]!,
    route: request.route === null ? null : masker.text(request.route),
    status: request.status === null ? unit.status : String(request.status),
    headers: masker.headers(request.headers),
    remote_address: request.remoteAddress,
    ...(request.connection ? { connection: { ...request.connection } } : {}),
    ...(request.traceparent ? { traceparent: request.traceparent } : {}),
  };
}

/** The root, the unit's other spans, one pool span per pool, and one http span per kept row. */
function buildSpans(
  unit: UnitInput,
  name: string,
  calls: CallInput[],
  rowOf: Map<CallInput, number>,
  rows: HttpRow[],
  poolBounds: FoldedCallsInput['pools'],
  masker: Masker,
): CaptureSpan[] {
  const at = (ms: number) => round(Math.max(0, ms - unit.startedAt));
  const span = (id: string, kind: CaptureSpan['kind'], name: string, start: number, end: number, meta: Record<string, unknown>): CaptureSpan => ({
    id,
    kind,
    name,
    start: at(start),
    end: at(end),
    duration: round(Math.max(0, end - start)),
    meta,
  });
  const rootId = unit.rootSpanId ?? 'root';
  const spans: CaptureSpan[] = [span(rootId, 'phase', name, unit.startedAt, unit.endedAt, { parent_id: null, root: true })];
  const known = new Set([rootId]);
  for (const input of unit.spans) {
    if (input.id === rootId) continue;
    known.add(input.id);
    // A span's name may quote the path it served (`GET /magic/<JWT>`, `request handler - /gh/ghp_…`): masked as text.
    spans.push(span(input.id, 'phase', masker.text(input.name), input.start, input.end, { ...input.meta, parent_id: input.parentId }));
  }
  const parentOf = (id: string | null) => (id && known.has(id) ? id : rootId);

  for (const pool of unit.pools) {
    const bounds = poolBounds[pool.number];
    if (!bounds) continue;
    spans.push(
      span(`pool-${pool.number}`, 'pool', `pool ${pool.number}`, bounds.start, bounds.end, { pool: pool.number, parent_id: parentOf(pool.parentSpanId) }),
    );
  }
  for (const call of calls) {
    const row = rowOf.get(call);
    if (row === undefined) continue;
    const parent =
      call.pool !== null && poolBounds[call.pool] !== undefined && unit.pools.some((p) => p.number === call.pool)
        ? `pool-${call.pool}`
        : parentOf(call.parentSpanId);
    spans.push(
      span(call.spanId, 'http', `${rows[row]!.method} ${rows[row]!.url.split('?')[0]}`, call.start, call.end ?? unit.endedAt, { row, parent_id: parent }),
    );
  }
  return spans;
}
