import type { Capture } from '../capture/types';
import type { Store } from '../store/Store';
import { QueryError } from './QueryError';
import { FIELD_LIMITS, ROW_LIMITS, clip, fitRows } from './clip';
import { knownFieldsOf } from './http-fields';
import { KNOWN_SECTIONS, findCapture, newestCapture, sectionsInIndex, sectionsOf } from './locate';
import { fieldsOf, getPath, pickFields, rootOf } from './paths';
import { compareValues, compileClause, fieldTypeOf, type WhereClause } from './where';

export const ROWS_DEFAULT_LIMIT = 50;
export const ROWS_MAX_LIMIT = 500;

export interface RowsInput {
  section: string;
  where?: WhereClause[];
  sort?: string;
  dir?: 'asc' | 'desc';
  limit?: number;
  fields?: string[];
  /** Default: the newest capture that has rows in the section. */
  id?: string;
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
  id: string | null;
  capture: CaptureRef | null;
  section: string;
  /** Rows in the section. */
  total: number;
  /** Rows that passed `where`. */
  matched: number;
  returned: number;
  /** Each row carries `row`, its index in the section (what `spans[].meta.row` points at). */
  rows: Array<Record<string, unknown>>;
  note?: string;
}

export function captureRef(capture: Capture): CaptureRef {
  return { id: capture.id, type: capture.type, name: capture.name, status: capture.status, started_at: capture.started_at };
}

/** Rows of one section of one capture, filtered, sorted, cut to `limit` and to the listed fields. */
export async function queryRows(store: Store, input: RowsInput): Promise<RowsResult> {
  const section = input.section;
  if (typeof section !== 'string' || section === '') throw new QueryError('section is required (the name of a capture section)', KNOWN_SECTIONS);
  const limit = input.limit ?? ROWS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > ROWS_MAX_LIMIT) throw new QueryError(`limit must be a whole number from 1 to ${ROWS_MAX_LIMIT}, got ${limit}`);
  const dir = input.dir ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') throw new QueryError(`dir ${JSON.stringify(dir)} is not a direction`, ['asc', 'desc']);

  let capture: Capture | null;
  if (input.id !== undefined) {
    capture = await findCapture(store, input.id);
    if (!(section in capture.sections)) {
      throw new QueryError(`capture ${capture.id} has no section ${JSON.stringify(section)}`, sectionsOf(capture));
    }
  } else {
    const index = await store.index();
    if (index.length === 0) return empty(section, 'The store holds no captures yet: run the app and make it do something, then ask again.');
    capture = await newestCapture(store, index, (row) => (row.counts?.[section] ?? 0) > 0);
    if (!capture) {
      const present = sectionsInIndex(index);
      if (!present.includes(section) && !KNOWN_SECTIONS.includes(section)) {
        throw new QueryError(`no capture has a section ${JSON.stringify(section)}`, [...new Set([...KNOWN_SECTIONS, ...present])]);
      }
      return empty(section, `None of the ${index.length} stored captures has ${section} rows.`);
    }
  }

  const rows = rowsOfSection(capture.sections[section]);
  const valid = fieldsOf(rows, knownFieldsOf(section));
  const check = (field: string, role: string): void => {
    if (typeof field !== 'string' || field === '') throw new QueryError(`${role} needs a field name`, valid);
    if (rows.length === 0 && valid.length === 0) return; // nothing to check against
    if (!valid.includes(field) && !valid.includes(rootOf(field))) {
      throw new QueryError(`unknown field ${JSON.stringify(field)} in ${role} for section ${section}`, valid);
    }
  };

  const predicates = (input.where ?? []).map((clause, i) => {
    check(clause?.field, `where[${i}]`);
    return compileClause({ field: clause.field, op: clause.op, value: String(clause.value) }, fieldTypeOf(rows, clause.field, section));
  });
  if (input.sort !== undefined) check(input.sort, 'sort');
  for (const field of input.fields ?? []) check(field, 'fields');

  let matched = rows.map((row, index) => ({ row, index })).filter(({ row }) => predicates.every((test) => test(row)));
  if (input.sort !== undefined) {
    const field = input.sort;
    const sign = dir === 'desc' ? -1 : 1;
    // Missing values sort last either way: an agent sorting by duration wants the real numbers first.
    matched = [...matched].sort((a, b) => {
      const x = getPath(a.row, field);
      const y = getPath(b.row, field);
      const xNone = x === null || x === undefined;
      const yNone = y === null || y === undefined;
      if (xNone || yNone) return xNone === yNone ? a.index - b.index : xNone ? 1 : -1;
      return sign * compareValues(x, y) || a.index - b.index;
    });
  } else if (dir === 'desc') {
    matched = [...matched].reverse();
  }

  const fields = input.fields?.length ? input.fields : null;
  const shaped = matched.slice(0, limit).map(({ row, index }) => shapeRow(row, index, fields));
  const fitted = fitRows(shaped);
  const notes: string[] = [];
  if (matched.length > limit) notes.push(`${matched.length - limit} more matching rows beyond limit ${limit}.`);
  if (fitted.left_out > 0) notes.push(`${fitted.left_out} rows left out to keep the answer short: list fields, add where clauses or lower limit.`);
  if (!fields && fitted.rows.length > 0) notes.push('Long values are clipped; list fields to see one in full.');
  return {
    id: capture.id,
    capture: captureRef(capture),
    section,
    total: rows.length,
    matched: matched.length,
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

function shapeRow(row: unknown, index: number, fields: readonly string[] | null): Record<string, unknown> {
  if (fields) return { row: index, ...(clip(pickFields(row, fields), FIELD_LIMITS) as Record<string, unknown>) };
  if (row !== null && typeof row === 'object' && !Array.isArray(row)) return { row: index, ...(clip(row, ROW_LIMITS) as Record<string, unknown>) };
  return { row: index, value: clip(row, ROW_LIMITS) };
}

function empty(section: string, note: string): RowsResult {
  return { id: null, capture: null, section, total: 0, matched: 0, returned: 0, rows: [], note };
}
