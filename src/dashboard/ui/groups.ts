import type { HttpRow } from '../../capture/types';
import { percentile } from '../../query/percentile';
import { grpcStatusText } from '../../builder/grpcStatusText';

export type GroupBy = 'none' | 'endpoint' | 'host' | 'pool' | 'status';

export interface RowGroup {
  key: string;
  /** Indexes into `sections.http`. */
  rows: number[];
  count: number;
  failed: number;
  total: number;
  avg: number;
  /** Nearest-rank percentiles of the durations (as probe-rows group_by gives them); null without durations. */
  p50: number | null;
  p95: number | null;
  max: number;
}

function keyOf(row: HttpRow, by: GroupBy): string {
  switch (by) {
    case 'endpoint':
      return row.endpoint;
    case 'host':
      return row.host;
    case 'pool':
      return row.pool === null ? 'not pooled' : `pool #${row.pool}`;
    case 'status':
      return row.status === null ? 'failed' : String(row.status);
    default:
      return '';
  }
}

/** Groups rows with count, failed and total/avg/p50/p95/max time; groups sorted by total time, largest first. */
export function groupRows(rows: HttpRow[], indexes: number[], by: GroupBy): RowGroup[] {
  const groups = new Map<string, RowGroup>();
  for (const index of indexes) {
    const row = rows[index]!;
    const key = keyOf(row, by);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { key, rows: [], count: 0, failed: 0, total: 0, avg: 0, p50: null, p95: null, max: 0 }));
    group.rows.push(index);
    group.count += 1;
    if (row.failed) group.failed += 1;
    group.total += row.duration ?? 0;
    group.max = Math.max(group.max, row.duration ?? 0);
  }
  const list = [...groups.values()];
  for (const group of list) {
    group.avg = group.count ? group.total / group.count : 0;
    const durations = group.rows.flatMap((index) => (rows[index]!.duration === null ? [] : [rows[index]!.duration!])).sort((a, b) => a - b);
    group.p50 = percentile(durations, 0.5);
    group.p95 = percentile(durations, 0.95);
  }
  return list.sort((a, b) => b.total - a.total || a.key.localeCompare(b.key));
}

/** Rows whose method, URL, status (a gRPC one too), host or code line contain `text` (case-insensitive). */
export function filterRows(rows: HttpRow[], text: string, failedOnly: boolean): number[] {
  const needle = text.trim().toLowerCase();
  const out: number[] = [];
  rows.forEach((row, index) => {
    if (failedOnly && !row.failed) return;
    if (needle) {
      const grpc = row.grpc_status ? ` ${grpcStatusText(row.grpc_status)}` : '';
      const hay = `${row.method} ${row.url} ${row.status ?? 'failed'}${grpc} ${row.origin ? `${row.origin.file}:${row.origin.line}` : ''}`.toLowerCase();
      if (!hay.includes(needle)) return;
    }
    out.push(index);
  });
  return out;
}
