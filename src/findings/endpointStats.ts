import type { HttpRow } from '../capture/types';
import type { EndpointStat } from './Finding';
import { templateEndpoints } from '../builder/endpointTemplates';

/** Durations per endpoint of one capture's calls (what a reader keeps per capture, to merge across the store). */
export function durationsByEndpoint(rows: readonly HttpRow[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const endpoints = templateEndpoints(rows);
  rows.forEach((row, index) => {
    const served = servedMs(row);
    if (served === null || row.fake || row.cache) return;
    const list = out.get(endpoints[index]!);
    if (list) list.push(served);
    else out.set(endpoints[index]!, [served]);
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

/**
 * A call's duration without the time it took to open its connection (DNS, connect, TLS): a new connection is slow
 * for reasons of its own, and the first call of a process pays it where the others reuse it.
 */
export function servedMs(row: HttpRow): number | null {
  if (row.duration === null) return null;
  const setup = (row.timing?.dns ?? 0) + (row.timing?.connect ?? 0) + (row.timing?.tls ?? 0);
  return Math.max(0, row.duration - setup);
}
