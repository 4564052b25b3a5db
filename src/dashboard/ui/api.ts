import type { Capture, IndexRow } from '../../capture/types';
import type { Finding } from '../../findings/Finding';
import type { DiffResult } from '../../diff/Diff';
import type { SnapshotStatus } from '../../snapshots/Snapshot';
import type { BaselineEntry } from '../../baselines/types';
import type { FindingCount } from '../findingCount';

export interface DashboardInfo {
  service: string;
  driver: string;
  root: string;
  /** The link template that opens a file in the developer's editor (`PROBE_EDITOR`), or null for none. */
  editor?: string | null;
}

export interface CallSearch {
  /** Per capture with a matching call: its id and the matching rows' numbers. */
  matches: Array<{ id: string; rows: number[] }>;
  /** Captures read. */
  scanned: number;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}

export const api = {
  info: () => getJson<DashboardInfo | null>('/api/info'),
  index: () => getJson<IndexRow[]>('/api/captures'),
  capture: (id: string) => getJson<Capture>(`/api/captures/${encodeURIComponent(id)}`),
  /** Captures holding calls whose method, URL, host or status contain the text. */
  calls: (text: string) => getJson<CallSearch>(`/api/calls?q=${encodeURIComponent(text)}`),
  /** Per listed capture with findings or none: how many and of which kinds. */
  findingCounts: () => getJson<Record<string, FindingCount>>('/api/findings'),
  findings: (id: string) => getJson<Finding[]>(`/api/captures/${encodeURIComponent(id)}/findings`),
  compare: (id: string, to: string) =>
    getJson<{ diff: DiffResult; before: Capture }>(`/api/captures/${encodeURIComponent(id)}/compare?to=${encodeURIComponent(to)}`),
  baselines: () => getJson<BaselineEntry[]>('/api/baselines'),
  /** A test capture against its committed snapshot (null: not a test, or no test file known). */
  snapshot: (id: string) => getJson<SnapshotStatus | null>(`/api/captures/${encodeURIComponent(id)}/snapshot`),
};

/**
 * Live index: Server-Sent Events of the whole index whenever it changes. `onState` reports whether the
 * stream is connected (EventSource reconnects by itself).
 */
export function watchIndex(onRows: (rows: IndexRow[]) => void, onState: (live: boolean) => void): () => void {
  const source = new EventSource('/api/events');
  source.addEventListener('index', (event) => {
    onState(true);
    try {
      onRows(JSON.parse((event as MessageEvent<string>).data) as IndexRow[]);
    } catch {
      // A torn message: the next one carries the whole index again.
    }
  });
  source.addEventListener('open', () => onState(true));
  source.addEventListener('error', () => onState(false));
  return () => source.close();
}
