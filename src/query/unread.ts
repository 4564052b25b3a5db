import type { IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import { QueryError } from './QueryError';
import { rowMatcher, type RowItem } from './rowSelect';
import type { WhereClause } from './where';

/**
 * What a rows query did not read, said in its answer. Without `id` or `since` it reads one capture, the newest
 * with rows in the section: "no failed call" there is not "no failed call", so the answer counts the captures
 * it left out, says how to read them, and, when nothing it read matched, how many rows of those would.
 */

/** Captures left out: `older` than the one capture read, or started `earlier` than `since`. */
export interface UnreadCaptures {
  kind: 'older' | 'earlier';
  rows: readonly IndexRow[];
  /** The filters in words (`older`: ` of type job`) or the `since` given (`earlier`). */
  filter: string;
}

/** In the answer: stored captures with rows in the section that were not read. */
export interface Unread {
  captures: number;
  /** When no row read matched `where`: rows of those captures that match, and in how many captures. */
  matching_rows?: number;
  matching_captures?: number;
  /** The input that reads them. */
  widen: string;
}

/** Widening, as the agent tools say it; the CLI says it with its flags (query/text.ts `cliNote`). */
export const WIDEN_ANY = 'add "id": "*" to read every stored capture, or "since": "1h" for the last hour';
export const WIDEN_SINCE = 'give a longer "since", or "id": "*" for every stored capture';

/** Captures read at most to count the matches a one-capture answer missed (a store keeps 200 by default). */
export const LOOKAHEAD_CAPTURES = 1000;

/**
 * Rows matching `where` in the captures left out, counted only when the one capture read matched none
 * (the answer that misleads); null when not counted.
 */
export async function elsewhere(
  store: Store,
  read: { section: string; unread?: UnreadCaptures },
  where: readonly WhereClause[] | undefined,
  matched: number,
): Promise<{ rows: number; captures: number } | null> {
  const unread = read.unread;
  if (!unread || unread.kind !== 'older' || matched > 0 || !where?.length || unread.rows.length === 0) return null;
  const items: RowItem[] = [];
  for (const row of unread.rows.slice(0, LOOKAHEAD_CAPTURES)) {
    const capture = await store.find(row.id);
    const section = capture?.sections[read.section];
    if (!capture || section === undefined) continue;
    const rows = Array.isArray(section) ? section : [section];
    rows.forEach((value, index) => items.push({ row: value, index, capture }));
  }
  try {
    const { matches } = rowMatcher(items, read.section, where, false);
    const hits = items.filter(matches);
    return { rows: hits.length, captures: new Set(hits.map((item) => item.capture.id)).size };
  } catch (error) {
    // A field the other captures' rows do not know: nothing matches there either.
    if (error instanceof QueryError) return { rows: 0, captures: 0 };
    throw error;
  }
}

/** The answer with `not_read` and, first in its note, what was not read and how to read it. */
export function withUnread<T extends { section: string; note?: string; capture: { id: string; name: string } | null }>(
  result: T,
  unread: UnreadCaptures | undefined,
  matching: { rows: number; captures: number } | null,
): T & { not_read?: Unread } {
  if (!unread || unread.rows.length === 0) return result;
  const count = unread.rows.length;
  const captures = `${count} ${count === 1 ? 'capture' : 'captures'}`;
  let said: string;
  let widen: string;
  if (unread.kind === 'older') {
    widen = WIDEN_ANY;
    said = `Read only the newest capture${unread.filter} with ${result.section} rows (${result.capture?.id}); ${captures} stored before it with ${result.section} rows ${count === 1 ? 'was' : 'were'} not read: ${widen}.`;
    if (matching)
      said +=
        matching.rows > 0
          ? ` No row of this capture matches, but ${matching.rows} ${matching.rows === 1 ? 'row' : 'rows'} in ${matching.captures} of the others ${matching.rows === 1 ? 'does' : 'do'}: add "id": "*" to read them.`
          : ' No row of the others matches either.';
  } else {
    widen = WIDEN_SINCE;
    said = `${captures} with ${result.section} rows started before the last ${unread.filter} ${count === 1 ? 'was' : 'were'} not read: ${widen}.`;
  }
  const notRead: Unread = {
    captures: count,
    ...(matching ? { matching_rows: matching.rows, matching_captures: matching.captures } : {}),
    widen,
  };
  return { ...result, not_read: notRead, note: result.note ? `${said} ${result.note}` : said };
}
