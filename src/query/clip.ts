import { setOwn } from '../util/setOwn';

/**
 * Keeps answers within an agent's context: long strings, bodies, arrays and objects are cut, and every cut
 * leaves a marker saying how much was left out, so the agent knows to ask for that one field.
 */

export interface ClipLimits {
  /** Characters kept of an ordinary string. */
  string: number;
  /** Characters kept of a body (`request_body`, `response_body`, `response_capture.raw`). */
  body: number;
  /** Characters kept of a binary body's base64 (`response_body_base64`); 0 leaves only a marker with its size. */
  base64: number;
  /** Items kept of an array. */
  items: number;
  /** Keys kept of an object. */
  keys: number;
  /** Nesting kept; deeper values become a marker. */
  depth: number;
}

/** For rows returned with every field. */
export const ROW_LIMITS: ClipLimits = { string: 300, body: 1000, base64: 0, items: 20, keys: 40, depth: 6 };
/** For fields an agent asked for by name: it wants them, so more is kept. */
export const FIELD_LIMITS: ClipLimits = { string: 4000, body: 8000, base64: 8000, items: 100, keys: 200, depth: 8 };
/** For the first rows shown next to a capture header. */
export const SHOW_LIMITS: ClipLimits = { string: 200, body: 500, base64: 0, items: 10, keys: 30, depth: 5 };

const BODY_KEYS = new Set(['request_body', 'response_body', 'raw', 'body']);

/** A binary body's bytes: noise to an agent reading rows, so a marker stands in unless the field is asked for. */
const BASE64_KEY = 'response_body_base64';

function base64Marker(base64: string): string {
  const size = Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
  return `[binary body: ${size} bytes as base64; \`probe export\` writes it whole]`;
}

export function clipString(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [clipped: ${text.length - max} more chars]`;
}

/** An object's key, clipped as a string is (a number added when another clipped key reads the same). */
function keyOf(name: string, max: number, taken: Record<string, unknown>): string {
  if (name.length <= max) return name;
  const clipped = clipString(name, max);
  let key = clipped;
  for (let n = 2; Object.hasOwn(taken, key); n++) key = `${clipped} (${n})`;
  return key;
}

export function clip(value: unknown, limits: ClipLimits, key = '', depth = 0): unknown {
  if (typeof value === 'string' && key === BASE64_KEY) return limits.base64 > 0 ? clipString(value, limits.base64) : base64Marker(value);
  if (typeof value === 'string') return clipString(value, BODY_KEYS.has(key) ? limits.body : limits.string);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= limits.depth) return `[clipped: nested ${Array.isArray(value) ? 'array' : 'object'}]`;
  if (Array.isArray(value)) {
    const kept = value.slice(0, limits.items).map((item) => clip(item, limits, '', depth + 1));
    if (value.length > limits.items) kept.push(`[clipped: ${value.length - limits.items} more items]`);
    return kept;
  }
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  // Keys are recorded text too (a JSON body's, a header's name): clipped like strings, kept apart when two clip alike.
  for (const [name, item] of entries.slice(0, limits.keys)) setOwn(out, keyOf(name, limits.string, out), clip(item, limits, name, depth + 1));
  if (entries.length > limits.keys) out['…'] = `[clipped: ${entries.length - limits.keys} more keys]`;
  return out;
}

/** Total characters of JSON an answer may hold; rows beyond it are left out (and counted). */
export const ANSWER_BUDGET = 60_000;

/** The leading rows whose JSON fits the budget (at least one), and how many were left out. */
export function fitRows<T>(rows: readonly T[], budget = ANSWER_BUDGET): { rows: T[]; left_out: number } {
  const kept: T[] = [];
  let used = 0;
  for (const row of rows) {
    const size = JSON.stringify(row)?.length ?? 0;
    if (kept.length > 0 && used + size > budget) break;
    kept.push(row);
    used += size;
  }
  return { rows: kept, left_out: rows.length - kept.length };
}
