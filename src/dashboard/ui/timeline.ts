import type { Capture, CaptureSpan, HttpRow } from '../../capture/types';

export interface TimelineItem {
  id: string;
  kind: 'capture' | 'phase' | 'pool' | 'http';
  label: string;
  depth: number;
  start: number;
  end: number;
  /** Index in `sections.http` for calls. */
  row: number | null;
}

function rowIndexOf(span: CaptureSpan): number | null {
  const row = span.meta?.row;
  return typeof row === 'number' ? row : null;
}

/**
 * Lays the capture's spans out as an indented list: each call under the span that made it, the calls of a
 * pool under one pool row. Captures without spans (or calls without one) still show every row. Pure.
 */
export function buildTimeline(capture: Capture): TimelineItem[] {
  const rows: HttpRow[] = capture.sections.http ?? [];
  const spans = capture.spans ?? [];
  const byId = new Map(spans.map((span) => [span.id, span]));
  const poolSpanByNumber = new Map<number, string>();
  for (const span of spans) {
    if (span.kind !== 'pool') continue;
    const number = typeof span.meta?.pool === 'number' ? span.meta.pool : Number(/(\d+)/.exec(span.name)?.[1]);
    if (Number.isFinite(number)) poolSpanByNumber.set(number, span.id);
  }

  const items: Array<{ id: string; parent: string | null; kind: TimelineItem['kind']; label: string; start: number; end: number; row: number | null }> = [];
  const seenRows = new Set<number>();
  for (const span of spans) {
    const row = span.kind === 'http' ? rowIndexOf(span) : null;
    let parent = typeof span.meta?.parent_id === 'string' ? span.meta.parent_id : null;
    if (row !== null) {
      seenRows.add(row);
      const pool = rows[row]?.pool;
      if (pool != null && poolSpanByNumber.has(pool)) parent = poolSpanByNumber.get(pool)!;
    }
    const poolNumber = span.kind === 'pool' ? [...poolSpanByNumber].find(([, spanId]) => spanId === span.id)?.[0] : undefined;
    const label = row !== null && rows[row] ? `${rows[row]!.method} ${rows[row]!.url}` : poolNumber !== undefined ? `pool #${poolNumber}` : span.name;
    items.push({ id: span.id, parent: parent && byId.has(parent) ? parent : null, kind: span.kind, label, start: span.start, end: span.end, row });
  }
  // Rows without a span (e.g. from a collector that sent none): synthetic pool rows keep the grouping.
  const syntheticPools = new Map<number, string>();
  rows.forEach((row, index) => {
    if (seenRows.has(index)) return;
    let parent: string | null = null;
    if (row.pool !== null) {
      parent = poolSpanByNumber.get(row.pool) ?? syntheticPools.get(row.pool) ?? null;
      if (!parent) {
        parent = `pool:${row.pool}`;
        syntheticPools.set(row.pool, parent);
        items.push({ id: parent, parent: null, kind: 'pool', label: `pool #${row.pool}`, start: row.time, end: row.time, row: null });
      }
    }
    items.push({
      id: `row:${index}`,
      parent,
      kind: 'http',
      label: `${row.method} ${row.url}`,
      start: row.time,
      end: row.time + (row.duration ?? 0),
      row: index,
    });
  });
  for (const id of syntheticPools.values()) {
    const pool = items.find((item) => item.id === id)!;
    for (const child of items)
      if (child.parent === id) {
        pool.start = Math.min(pool.start, child.start);
        pool.end = Math.max(pool.end, child.end);
      }
  }

  const children = new Map<string | null, typeof items>();
  for (const item of items) {
    const list = children.get(item.parent) ?? [];
    list.push(item);
    children.set(item.parent, list);
  }
  // The root span already stands for the whole capture; otherwise a synthetic row does.
  const top = children.get(null) ?? [];
  const rootIsSpan = top.length === 1 && top[0]!.kind === 'phase';
  const out: TimelineItem[] = rootIsSpan ? [] : [{ id: 'capture', kind: 'capture', label: capture.name, depth: 0, start: 0, end: capture.duration, row: null }];
  const walk = (parent: string | null, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) => a.start - b.start || (a.row ?? 0) - (b.row ?? 0));
    for (const item of list) {
      out.push({ id: item.id, kind: item.kind, label: item.label, depth, start: item.start, end: item.end, row: item.row });
      walk(item.id, depth + 1);
    }
  };
  walk(null, rootIsSpan ? 0 : 1);
  return out;
}

/** Time covered by at least one call (overlapping calls count once), clipped to the capture. Pure. */
export function httpCoveredMs(rows: HttpRow[], duration: number): number {
  const intervals = rows
    .map((row) => [Math.max(0, row.time), Math.min(duration, row.time + (row.duration ?? 0))] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let currentStart = -1;
  let currentEnd = -1;
  for (const [start, end] of intervals) {
    if (start > currentEnd) {
      if (currentEnd > currentStart) covered += currentEnd - currentStart;
      currentStart = start;
      currentEnd = end;
    } else currentEnd = Math.max(currentEnd, end);
  }
  if (currentEnd > currentStart) covered += currentEnd - currentStart;
  return covered;
}
