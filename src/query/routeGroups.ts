import type { IndexRow } from '../capture/types';

/** Captures of one route template (null: requests no framework routed, and jobs and commands). */
export interface RouteGroup {
  route: string | null;
  captures: number;
  /** Captures with a failed call or an error. */
  with_errors: number;
  /** ms */
  avg_duration: number;
  max_duration: number;
  /** The newest capture of the group. */
  latest_id: string;
}

/** Index rows (newest first) grouped by route, the most captured first. */
export function groupByRoute(rows: readonly IndexRow[]): RouteGroup[] {
  const groups = new Map<string | null, RouteGroup & { total: number }>();
  for (const row of rows) {
    const route = row.route ?? null;
    let group = groups.get(route);
    if (!group) groups.set(route, (group = { route, captures: 0, with_errors: 0, avg_duration: 0, max_duration: 0, latest_id: row.id, total: 0 }));
    group.captures += 1;
    if (row.has_errors) group.with_errors += 1;
    group.total += row.duration ?? 0;
    group.max_duration = Math.max(group.max_duration, row.duration ?? 0);
  }
  return [...groups.values()]
    .map(({ total, ...group }) => ({ ...group, avg_duration: Math.round((total / group.captures) * 1000) / 1000 }))
    .sort((a, b) => b.captures - a.captures || String(a.route).localeCompare(String(b.route)));
}
