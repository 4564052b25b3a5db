import type { HttpRow } from '../capture/types';
import type { EndpointStat } from './Finding';
import { templateEndpoints } from '../builder/endpointTemplates';

/** Durations per endpoint of one capture's calls (what a reader keeps per capture, to merge across the store). */
export function durationsByEndpoint(rows: readonly HttpRow[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const endpoints = templateEndpoints(rows);
  rows.forEach((row, index) => {
    if (row.duration === null || row.fake || row.cache) return;
    const list = out.get(endpoints[index]!);
    if (list) list.push(row.duration);
    else out.set(endpoints[index]!, [row.duration]);
  });
  return out;
}

/** Count, nearest-rank p95 and the sorted durations per endpoint over several captures' durations. */
export function endpointStats(perCapture: Iterable<ReadonlyMap<string, readonly number[]>>): Map<string, EndpointStat> {
  const all = new Map<string, number[]>();
  for (const captures of perCapture) {
    for (const [endpoint, durations] of captures) {
      const list = all.get(endpoint);
      if (list) list.push(...durations);
      else all.set(endpoint, [...durations]);
    }
  }
  const out = new Map<string, EndpointStat>();
  for (const [endpoint, durations] of all) {
    durations.sort((a, b) => a - b);
    const rank = Math.max(1, Math.ceil(0.95 * durations.length));
    out.set(endpoint, { count: durations.length, p95: durations[rank - 1]!, durations });
  }
  return out;
}
