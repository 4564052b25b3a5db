import type { RowItem } from './rowSelect';
import { QueryError } from './QueryError';
import { compareValues } from './where';
import { percentile } from './percentile';

/**
 * Rows summed up per group, so "which endpoint is slow or failing" is one short answer instead of hundreds of
 * rows: the summary is computed here, not by the model reading the rows ("summarise in SQL, not in the model").
 */

/** One group: its key, how many rows, how many failed, durations, bytes, when, and one row to open. */
export interface RowGroup {
  /** The value of the `group_by` field (null for rows without it). */
  key: unknown;
  count: number;
  failed: number;
  /** ms, nearest rank over rows with a duration; null when none has one. */
  p50: number | null;
  p95: number | null;
  max: number | null;
  /** request_bytes + response_bytes of every row. */
  bytes: number;
  /** Start of the earliest and latest row, epoch seconds. */
  first: number;
  last: number;
  /** A failed row when one failed, else the slowest: open it with probe-show {id: capture_id, section, row}. */
  example: { capture_id: string; row: number };
}

/** Values `sort` takes with `group_by`. */
export const GROUP_SORTS = ['count', 'failed', 'p50', 'p95', 'max', 'bytes', 'first', 'last', 'key'] as const;
export type GroupSort = (typeof GROUP_SORTS)[number];

/** Group keys read from the capture rather than the row (`route` is the capture's route template). */
export const CAPTURE_KEYS = ['capture_name', 'capture_id', 'route'] as const;

/** How a row is grouped: `read` is the row field reader of the query (dotted paths, `row`, capture fields). */
export function groupKeyOf(by: string, read: (item: RowItem, field: string) => unknown): (item: RowItem) => unknown {
  switch (by) {
    case 'capture_name':
      return (item) => item.capture.name;
    case 'capture_id':
      return (item) => item.capture.id;
    case 'route':
      // A row's own `route` (the request section) first, else the route of the request that made the call.
      return (item) => read(item, 'route') ?? item.capture.sections.request?.route ?? null;
    default:
      return (item) => read(item, by) ?? null;
  }
}

interface Building {
  key: unknown;
  count: number;
  failed: number;
  durations: number[];
  bytes: number;
  first: number;
  last: number;
  firstFailed: RowItem | null;
  slowest: RowItem;
  slowestMs: number;
}

/**
 * Groups `items` (already filtered) by `keyOf`, sorted by `sort` (default `count`) in `dir` order; groups
 * with the same value keep the order of their first row. Missing values (p50 of calls without a duration)
 * sort last either way.
 */
export function groupRows(items: readonly RowItem[], keyOf: (item: RowItem) => unknown, sort: GroupSort = 'count', dir: 'asc' | 'desc' = 'desc'): RowGroup[] {
  if (!(GROUP_SORTS as readonly string[]).includes(sort)) throw new QueryError(`sort ${JSON.stringify(sort)} is not a group field`, GROUP_SORTS);
  const groups = new Map<string, Building>();
  for (const item of items) {
    const key = keyOf(item);
    const id = typeof key === 'object' && key !== null ? JSON.stringify(key) : `${typeof key}:${String(key)}`;
    const row = (item.row ?? {}) as Record<string, unknown>;
    const duration = typeof row.duration === 'number' ? row.duration : null;
    const start = item.capture.started_at + (typeof row.time === 'number' ? row.time : 0) / 1000;
    let group = groups.get(id);
    if (!group) {
      group = { key, count: 0, failed: 0, durations: [], bytes: 0, first: start, last: start, firstFailed: null, slowest: item, slowestMs: -1 };
      groups.set(id, group);
    }
    group.count += 1;
    if (row.failed === true) {
      group.failed += 1;
      group.firstFailed ??= item;
    }
    if (duration !== null) {
      group.durations.push(duration);
      if (duration > group.slowestMs) {
        group.slowest = item;
        group.slowestMs = duration;
      }
    }
    group.bytes += bytesOf(row.request_bytes) + bytesOf(row.response_bytes);
    group.first = Math.min(group.first, start);
    group.last = Math.max(group.last, start);
  }
  const list = [...groups.values()].map(finish);
  const sign = dir === 'desc' ? -1 : 1;
  return list
    .map((group, position) => ({ group, position }))
    .sort((a, b) => {
      const x = a.group[sort];
      const y = b.group[sort];
      const xNone = x === null || x === undefined;
      const yNone = y === null || y === undefined;
      if (xNone || yNone) return xNone === yNone ? a.position - b.position : xNone ? 1 : -1;
      return sign * compareValues(x, y) || a.position - b.position;
    })
    .map(({ group }) => group);
}

function finish(group: Building): RowGroup {
  const sorted = group.durations.sort((a, b) => a - b);
  const example = group.firstFailed ?? group.slowest;
  return {
    key: group.key,
    count: group.count,
    failed: group.failed,
    p50: tenth(percentile(sorted, 0.5)),
    p95: tenth(percentile(sorted, 0.95)),
    max: tenth(sorted.length ? sorted[sorted.length - 1]! : null),
    bytes: group.bytes,
    first: milli(group.first),
    last: milli(group.last),
    example: { capture_id: example.capture.id, row: example.index },
  };
}

function bytesOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Durations to 0.1 ms and times to 1 ms: more digits cost an agent tokens and tell it nothing. */
function tenth(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10) / 10;
}

function milli(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
