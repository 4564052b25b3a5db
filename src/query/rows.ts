import { emptyStoreNote } from './emptyStore';
import type { Capture, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import { QueryError } from './QueryError';
import { checkInputSizes, shownInput } from './inputs';
import { ANSWER_BUDGET, fitRows } from './clip';
import { captureFilter, describeFilter } from './captureFilter';
import { KNOWN_SECTIONS, findCapture, newestCapture, sectionsInIndex, sectionsOf } from './locate';
import { selectRows, type RowItem } from './rowSelect';
import type { WhereClause } from './where';
import { elsewhere, withUnread, type Unread, type UnreadCaptures } from './unread';

export const ROWS_DEFAULT_LIMIT = 50;
export const ROWS_MAX_LIMIT = 500;
export const DEFAULT_SECTION = 'http';
/** The `id` that reads every capture (narrowed by `since`, `type`, `name`). */
export const EVERY_CAPTURE = '*';

export interface RowsInput {
  /** Default `http`. */
  section?: string;
  where?: WhereClause[];
  sort?: string;
  dir?: 'asc' | 'desc';
  limit?: number;
  /** Exactly the fields each row holds; `row` (the index) only when listed. Default: whole rows. */
  fields?: string[];
  /** Default: the newest capture that has rows in the section; `*`: every capture. */
  id?: string;
  /** `30s`, `15m`, `2h`, `1d`: read every capture started within it. */
  since?: string;
  /** Only captures of this type. */
  type?: string;
  /** Only captures whose name matches this glob. */
  name?: string;
}

/** A short header so an agent knows which capture the rows came from. */
export interface CaptureRef {
  id: string;
  type: string;
  name: string;
  status: string;
  started_at: number;
}

export interface RowsResult {
  /** The capture read; `*` across captures; null when none was found. */
  id: string | null;
  capture: CaptureRef | null;
  section: string;
  /** Across captures: how many captures were read (newest first). */
  captures?: number;
  /** Rows in the section (of every capture read). */
  total: number;
  /** Rows that passed `where`. */
  matched: number;
  returned: number;
  /** Rows shaped by `fields`; across captures each also carries `capture_id` and `capture_name`. */
  rows: Array<Record<string, unknown>>;
  /** Stored captures with rows in the section that this answer did not read (see `Unread`). */
  not_read?: Unread;
  note?: string;
}

export function captureRef(capture: Capture): CaptureRef {
  return { id: capture.id, type: capture.type, name: capture.name, status: capture.status, started_at: capture.started_at };
}

/**
 * Rows of one section, filtered, sorted, cut to `limit` and to the listed fields: of one capture, or with
 * `since` or `id: "*"` of every capture that matches (newest first). `now` is epoch seconds (for tests).
 */
/** `budget`: characters of rows kept (the agent tools fit the whole answer to max_tokens instead: Infinity). */
export async function queryRows(store: Store, input: RowsInput = {}, now = Date.now() / 1000, budget = ANSWER_BUDGET): Promise<RowsResult> {
  checkInputSizes(input);
  const limit = input.limit ?? ROWS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > ROWS_MAX_LIMIT)
    throw new QueryError(`limit must be a whole number from 1 to ${ROWS_MAX_LIMIT}, got ${limit}`);
  const dir = input.dir ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') throw new QueryError(`dir ${shownInput(dir)} is not a direction`, ['asc', 'desc']);
  const read = await readSection(store, input, now);
  if ('empty' in read) return read.empty;
  const result = answer(read.section, read.groups, { where: input.where, sort: input.sort, dir, limit, fields: input.fields }, read.capture, budget);
  return withUnread(result, read.unread, await elsewhere(store, read, input.where, result.matched));
}

/** The rows a query reads: one capture's (`capture` set) or, across captures, each capture's rows newest first. */
export type SectionRead = { section: string; groups: RowItem[][]; capture: Capture | null; unread?: UnreadCaptures } | { empty: RowsResult };

/** Which captures `id`, `since`, `type` and `name` choose, read from the store (shared by rows and groups). */
export async function readSection(store: Store, input: RowsInput, now: number): Promise<SectionRead> {
  const section = input.section ?? DEFAULT_SECTION;
  if (typeof section !== 'string' || section === '') throw new QueryError('section must be the name of a capture section', KNOWN_SECTIONS);
  const accept = captureFilter(input, now);
  const filtered = input.since !== undefined || input.type !== undefined || input.name !== undefined;

  if (input.id !== undefined && input.id !== EVERY_CAPTURE) {
    if (filtered) {
      throw new QueryError(
        `id ${shownInput(input.id)} names one capture, and since, type and name choose captures: leave id out, or give id "*" to read every capture they choose`,
      );
    }
    const capture = await findCapture(store, input.id);
    if (!(section in capture.sections)) throw new QueryError(`capture ${capture.id} has no section ${shownInput(section)}`, sectionsOf(capture));
    return { section, groups: [itemsOf(capture, section)], capture };
  }

  const index = await store.index();
  if (index.length === 0) return { empty: empty(section, emptyStoreNote(store)) };
  const hasRows = (row: IndexRow) => (row.counts?.[section] ?? 0) > 0 && accept(row);
  const unknownSection = () => {
    const present = sectionsInIndex(index);
    if (!present.includes(section) && !KNOWN_SECTIONS.includes(section)) {
      throw new QueryError(`no capture has a section ${shownInput(section)}`, [...new Set([...KNOWN_SECTIONS, ...present])]);
    }
  };
  const chosen = filtered ? ` ${describeFilter(input)}` : '';

  if (input.id === EVERY_CAPTURE || input.since !== undefined) {
    const groups: RowItem[][] = [];
    for (const row of index.filter(hasRows)) {
      const capture = await store.find(row.id); // gone since the index was read (limit, TTL): skipped
      if (capture && section in capture.sections) groups.push(itemsOf(capture, section));
    }
    if (groups.length === 0) {
      unknownSection();
      return { empty: { ...empty(section, `None of the ${index.length} stored captures${chosen} has ${section} rows.`), id: EVERY_CAPTURE, captures: 0 } };
    }
    // Captures `since` left out (of the type and name asked for): named, so an hour is not mistaken for everything.
    const chosenBut = captureFilter({ ...input, since: undefined }, now);
    const earlier = input.since !== undefined ? index.filter((row) => (row.counts?.[section] ?? 0) > 0 && !accept(row) && chosenBut(row)) : [];
    return { section, groups, capture: null, ...(earlier.length ? { unread: { kind: 'earlier', rows: earlier, filter: input.since! } } : {}) };
  }

  const capture = await newestCapture(store, index, hasRows);
  if (!capture) {
    unknownSection();
    return { empty: empty(section, `None of the ${index.length} stored captures${chosen} has ${section} rows.`) };
  }
  const others = index.filter((row) => row.id !== capture.id && hasRows(row));
  return { section, groups: [itemsOf(capture, section)], capture, unread: { kind: 'older', rows: others, filter: chosen } };
}

function itemsOf(capture: Capture, section: string): RowItem[] {
  return rowsOfSection(capture.sections[section]).map((row, index) => ({ row, index, capture }));
}

function answer(section: string, groups: RowItem[][], select: Parameters<typeof selectRows>[2], capture: Capture | null, budget: number): RowsResult {
  const across = capture === null;
  const selection = selectRows(groups, section, select, across);
  const fitted = fitRows(selection.rows, budget);
  const notes: string[] = [];
  if (selection.matched > select.limit) notes.push(`${selection.matched - select.limit} more matching rows beyond limit ${select.limit}.`);
  if (fitted.left_out > 0) notes.push(`${fitted.left_out} rows left out to keep the answer short: list fields, add where clauses or lower limit.`);
  if (!select.fields?.length && fitted.rows.length > 0)
    notes.push('Long values are clipped; list fields to see one in full, or probe-show with section and row for one whole row.');
  return {
    id: capture ? capture.id : EVERY_CAPTURE,
    capture: capture ? captureRef(capture) : null,
    section,
    ...(across ? { captures: groups.length } : {}),
    total: groups.reduce((sum, group) => sum + group.length, 0),
    matched: selection.matched,
    returned: fitted.rows.length,
    rows: fitted.rows,
    ...(notes.length ? { note: notes.join(' ') } : {}),
  };
}

/** Array sections are rows; an object section (`request`) is one row. */
export function rowsOfSection(section: unknown): unknown[] {
  if (Array.isArray(section)) return section;
  if (section === null || section === undefined) return [];
  return [section];
}

export function empty(section: string, note: string): RowsResult {
  return { id: null, capture: null, section, total: 0, matched: 0, returned: 0, rows: [], note };
}
