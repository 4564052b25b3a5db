import type { Capture } from '../capture/types';
import { QueryError } from './QueryError';
import { shownInput } from './inputs';
import { FIELD_LIMITS, ROW_LIMITS, clip } from './clip';
import { knownFieldsOf, type FieldType } from './httpFields';
import { fieldsOf, getPath, rootOf } from './paths';
import { compareValues, compileClause, fieldTypeOf, type WhereClause } from './where';

/**
 * Filtering, sorting and shaping rows, the same for one capture and across captures. Besides the section's
 * own fields, every row answers to `row` (its index in the section, what `spans[].meta.row` and the
 * dashboard's row number show) and, across captures, `capture_id` and `capture_name`.
 */

/** One row of a section and where it came from. */
export interface RowItem {
  row: unknown;
  /** Index in the section. */
  index: number;
  capture: Capture;
}

export interface SelectInput {
  where?: WhereClause[];
  sort?: string;
  dir: 'asc' | 'desc';
  limit: number;
  fields?: string[];
}

export const ROW_FIELD = 'row';
const CAPTURE_FIELDS = ['capture_id', 'capture_name'] as const;

const PSEUDO_TYPES: Readonly<Record<string, FieldType>> = { row: 'number', capture_id: 'string', capture_name: 'string' };

export interface Selection {
  matched: number;
  rows: Array<Record<string, unknown>>;
}

/**
 * `groups` are the rows of each capture in reading order (newest capture first across captures). Rows with
 * `fields` hold those fields exactly, keyed by their dotted names; without, the whole row (clipped) after
 * `row` (and `capture_id`, `capture_name` across captures, which are always there).
 */
export function selectRows(groups: readonly RowItem[][], section: string, input: SelectInput, across: boolean): Selection {
  const all = groups.flat();
  const { check, read, matches } = rowMatcher(all, section, input.where, across);
  if (input.sort !== undefined) check(input.sort, 'sort');
  for (const field of input.fields ?? []) check(field, 'fields');

  const order = new Map(all.map((item, position) => [item, position]));
  const kept = (list: readonly RowItem[]) => list.filter(matches);
  let matched: RowItem[];
  if (input.sort !== undefined) {
    const field = input.sort;
    const sign = input.dir === 'desc' ? -1 : 1;
    // Missing values sort last either way: an agent sorting by duration wants the real numbers first.
    matched = kept(all).sort((a, b) => {
      const x = read(a, field);
      const y = read(b, field);
      const tie = order.get(a)! - order.get(b)!;
      const xNone = x === null || x === undefined;
      const yNone = y === null || y === undefined;
      if (xNone || yNone) return xNone === yNone ? tie : xNone ? 1 : -1;
      return sign * compareValues(x, y) || tie;
    });
  } else {
    // Without a sort, `dir` orders rows within each capture; captures stay newest first.
    matched = groups.flatMap((group) => (input.dir === 'desc' ? kept(group).reverse() : kept(group)));
  }

  const fields = input.fields?.length ? input.fields : null;
  return { matched: matched.length, rows: matched.slice(0, input.limit).map((item) => shapeRow(item, fields, across)) };
}

/** What filtering needs, built once per query: field checks (a bad name lists the valid ones), reads, the `where` test. */
export interface RowMatcher {
  check(field: string, role: string): void;
  read(item: RowItem, field: string): unknown;
  matches(item: RowItem): boolean;
}

/** `where` compiled over these rows (shared by row selection and grouping, so both filter alike). */
export function rowMatcher(all: readonly RowItem[], section: string, where: readonly WhereClause[] | undefined, across: boolean): RowMatcher {
  const rows = all.map((item) => item.row);
  const pseudo = across ? [ROW_FIELD, ...CAPTURE_FIELDS] : [ROW_FIELD];
  const valid = [...fieldsOf(rows, knownFieldsOf(section)), ...pseudo];
  const check = (field: string, role: string): void => {
    if (typeof field !== 'string' || field === '') throw new QueryError(`${role} needs a field name`, valid);
    if (pseudo.includes(field)) return;
    if (rows.length === 0 && valid.length === pseudo.length) return; // nothing to check against
    if (!valid.includes(field) && !valid.includes(rootOf(field))) {
      throw new QueryError(`unknown field ${shownInput(field)} in ${role} for section ${section}`, valid);
    }
  };
  const read = (item: RowItem, field: string): unknown => (pseudo.includes(field) ? pseudoValue(item, field) : getPath(item.row, field));

  const predicates = (where ?? []).map((clause, i) => {
    check(clause?.field, `where[${i}]`);
    const field = clause.field;
    const type = PSEUDO_TYPES[field] && pseudo.includes(field) ? PSEUDO_TYPES[field] : fieldTypeOf(rows, field, section);
    const test = compileClause({ field, op: clause.op, value: String(clause.value) }, type);
    return pseudo.includes(field) ? (item: RowItem) => test({ [field]: pseudoValue(item, field) }) : (item: RowItem) => test(item.row);
  });
  return { check, read, matches: (item) => predicates.every((test) => test(item)) };
}

function pseudoValue(item: RowItem, field: string): unknown {
  if (field === 'capture_id') return item.capture.id;
  if (field === 'capture_name') return item.capture.name;
  return item.index;
}

function shapeRow(item: RowItem, fields: readonly string[] | null, across: boolean): Record<string, unknown> {
  const origin: Record<string, unknown> = across ? { capture_id: item.capture.id, capture_name: item.capture.name } : {};
  if (fields) {
    const out: Record<string, unknown> = { ...origin };
    for (const field of fields) {
      out[field] =
        field === ROW_FIELD || (across && field in origin)
          ? pseudoValue(item, field)
          : clip(getPath(item.row, field) ?? null, FIELD_LIMITS, field.slice(field.lastIndexOf('.') + 1));
    }
    return out;
  }
  const { row } = item;
  if (row !== null && typeof row === 'object' && !Array.isArray(row))
    return { ...origin, row: item.index, ...(clip(row, ROW_LIMITS) as Record<string, unknown>) };
  return { ...origin, row: item.index, value: clip(row, ROW_LIMITS) };
}
