import type { Capture, IndexRow } from '../capture/types';

/** Longest text searched: a search box, not a document (and every comparison stays linear in it). */
export const MAX_SEARCH = 200;

export interface CallSearchResult {
  matches: Array<{ id: string; rows: number[] }>;
  scanned: number;
}

/** Whether a call's method, URL, host or status (or `failed`) contains the text, case ignored. */
function matches(row: NonNullable<Capture['sections']['http']>[number], needle: string): boolean {
  const hay = `${row.method} ${row.url} ${row.host} ${row.status ?? 'failed'}`.toLowerCase();
  return hay.includes(needle);
}

/**
 * Which captures called this: every stored capture with HTTP rows is read (the store holds at most
 * `storage.limit`), and the numbers of its matching rows returned. A capture gone between the index and the read
 * is skipped.
 */
export async function searchCalls(text: string, index: readonly IndexRow[], find: (id: string) => Promise<Capture | null>): Promise<CallSearchResult> {
  const needle = text.trim().toLowerCase().slice(0, MAX_SEARCH);
  const result: CallSearchResult = { matches: [], scanned: 0 };
  if (!needle) return result;
  for (const entry of index) {
    if (!entry.counts?.http) continue;
    const capture = await find(entry.id).catch(() => null);
    result.scanned++;
    const rows: number[] = [];
    (capture?.sections.http ?? []).forEach((row, at) => {
      if (matches(row, needle)) rows.push(at);
    });
    if (rows.length) result.matches.push({ id: entry.id, rows });
  }
  return result;
}
