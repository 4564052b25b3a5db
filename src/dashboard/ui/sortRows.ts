import type { HttpRow } from '../../capture/types';

export type SortKey = 'row' | 'method' | 'status' | 'url' | 'sent' | 'received' | 'pool' | 'duration' | 'code';
export interface SortState {
  key: SortKey;
  dir: 'asc' | 'desc';
}

function valueOf(row: HttpRow, index: number, key: SortKey): number | string | null {
  switch (key) {
    case 'row':
      return index;
    case 'method':
      return row.method;
    case 'status':
      return row.status;
    case 'url':
      return row.url;
    case 'sent':
      return row.request_bytes;
    case 'received':
      return row.response_bytes;
    case 'pool':
      return row.pool;
    case 'duration':
      return row.duration;
    case 'code':
      return row.origin ? `${row.origin.file}:${String(row.origin.line).padStart(8, '0')}` : null;
  }
}

/**
 * The shown rows' numbers in a column's order (missing values last whatever the direction, ties in call order), or
 * as given when no column is chosen.
 */
export function sortRows(all: readonly HttpRow[], shown: number[], sort: SortState | null): number[] {
  if (!sort) return shown;
  const sign = sort.dir === 'asc' ? 1 : -1;
  return shown
    .map((index) => ({ index, value: valueOf(all[index]!, index, sort.key) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null) return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      const order = typeof a.value === 'number' && typeof b.value === 'number' ? a.value - b.value : String(a.value).localeCompare(String(b.value));
      return order !== 0 ? sign * order : a.index - b.index;
    })
    .map((entry) => entry.index);
}
