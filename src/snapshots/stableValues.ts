import { setOwn } from '../util/setOwn';
/**
 * What changes from one run of an unchanged suite to the next, replaced by a fixed word (docs/snapshots.md): the
 * port of a loopback server (port 0 gives another each run) wherever it appears, and string values that are
 * wholly a date-time or a UUID. Object keys are sorted, so a body's key order is not a change.
 */

const LOOPBACK_PORT = /((?:\/\/|^|[^\w.-])(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])):\d{1,5}\b/gi;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Deeper than this, a body is kept as `…` (JSON this deep is not a contract anyone reviews). */
const MAX_DEPTH = 64;

export function stableText(text: string): string {
  if (DATE_TIME.test(text)) return '{datetime}';
  if (UUID.test(text)) return '{uuid}';
  return text.replace(LOOPBACK_PORT, '$1:{port}');
}

/** A copy of a JSON value with stable strings and sorted keys. */
export function stableValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return stableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.map((item) => stableValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setOwn(out, key, stableValue((value as Record<string, unknown>)[key], depth + 1));
  return out;
}

/** Each value replaced by its type (`"string"`, `"number"`, `"boolean"`, `null`); an array by its first item's shape. */
export function shapeOf(value: unknown, depth = 0): unknown {
  if (value === null) return null;
  if (typeof value !== 'object') return typeof value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.length ? [shapeOf(value[0], depth + 1)] : [];
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setOwn(out, key, shapeOf((value as Record<string, unknown>)[key], depth + 1));
  return out;
}
