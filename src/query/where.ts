import { QueryError } from './QueryError';
import { shownInput } from './inputs';
import { textFinder } from '../util/findText';
import { getPath } from './paths';
import { HTTP_FIELD_TYPES, type FieldType } from './httpFields';

export const OPERATORS = ['=', '!=', '>', '>=', '<', '<=', 'contains', 'starts_with'] as const;
export type Operator = (typeof OPERATORS)[number];

/** One filter as agents write it: the value is a string, coerced to the field's type. */
export interface WhereClause {
  field: string;
  op: Operator;
  value: string;
}

type Scalar = string | number | boolean | null;

/**
 * The type of a field in these rows: that of its first non-null value, else what docs/capture-format.md says for HTTP
 * fields (a capture where no call failed still has a numeric `status` to compare against).
 */
export function fieldTypeOf(rows: readonly unknown[], field: string, section: string): FieldType {
  for (const row of rows) {
    const value = getPath(row, field);
    if (value === null || value === undefined) continue;
    if (typeof value === 'number') return 'number';
    if (typeof value === 'boolean') return 'boolean';
    if (typeof value === 'string') return 'string';
    return 'object';
  }
  return (section === 'http' ? HTTP_FIELD_TYPES[field] : undefined) ?? 'unknown';
}

/** Turns the given string into a value of the field's type; `"null"` is null for every type. */
function coerceValue(raw: string, type: FieldType, field: string): Scalar {
  const text = raw.trim();
  if (text === 'null') return null;
  switch (type) {
    case 'number': {
      const number = Number(text);
      if (text === '' || !Number.isFinite(number))
        throw new QueryError(`value ${shownInput(raw)} for field ${field} is not a number (give digits such as "500", or "null")`);
      return number;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      throw new QueryError(`value ${shownInput(raw)} for field ${field} is not a boolean`, ['true', 'false', 'null']);
    }
    case 'unknown': {
      if (text === 'true') return true;
      if (text === 'false') return false;
      if (text !== '' && Number.isFinite(Number(text))) return Number(text);
      return raw;
    }
    default:
      return raw;
  }
}

/** A predicate for one clause, built once per query (the value is coerced once, not per row). */
export function compileClause(clause: WhereClause, type: FieldType): (row: unknown) => boolean {
  const { field, op } = clause;
  if (!(OPERATORS as readonly string[]).includes(op)) throw new QueryError(`unknown operator ${shownInput(op)}`, OPERATORS);
  if (op === 'contains' || op === 'starts_with') {
    const needle = clause.value.toLowerCase();
    // Linear in the row's text whatever the needle: see findText.
    const found = op === 'contains' ? textFinder(needle) : (text: string) => text.startsWith(needle);
    return (row) => {
      const text = textOf(getPath(row, field));
      return text !== null && found(text.toLowerCase());
    };
  }
  const value = coerceValue(clause.value, type, field);
  if (op === '=' || op === '!=') {
    const want = op === '=';
    return (row) => equals(getPath(row, field), value) === want;
  }
  if (value === null) throw new QueryError(`operator ${op} needs a value to compare with, not null (use = or != to test for null)`);
  return (row) => {
    const actual = getPath(row, field);
    if (actual === null || actual === undefined) return false;
    const order = compareValues(actual, value);
    switch (op) {
      case '>':
        return order > 0;
      case '>=':
        return order >= 0;
      case '<':
        return order < 0;
      default:
        return order <= 0;
    }
  };
}

function equals(actual: unknown, value: Scalar): boolean {
  if (value === null) return actual === null || actual === undefined;
  if (actual === null || actual === undefined) return false;
  if (typeof actual === 'object') return JSON.stringify(actual) === value;
  if (typeof actual === typeof value) return actual === value;
  return String(actual) === String(value);
}

function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Total order for sorting and comparisons: numbers numerically, booleans false < true, the rest as text. */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const left = textOf(a) ?? '';
  const right = textOf(b) ?? '';
  return left < right ? -1 : left > right ? 1 : 0;
}
