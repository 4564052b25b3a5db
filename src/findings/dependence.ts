import type { HttpRow } from '../capture/types';

/**
 * Whether a call used what an earlier call answered: a value of the earlier response (a JSON field, a
 * `location` header) found in the later request (a URL segment, a query value, a payload field, or, for
 * values long enough not to match by chance, anywhere in its URL or body). Masked values say nothing and
 * are skipped. Bounded: at most MAX_VALUES values of at most MAX_TEXT characters are compared.
 */
const MAX_VALUES = 2000;
const MAX_TEXT = 200;
/** Shorter values are compared with whole tokens only (an id `7` is in `/items/7`, not in `/v17`). */
const SUBSTRING_MIN = 8;
const MASKED = /^\*{4,}/;

export function usesResponseOf(earlier: HttpRow, later: HttpRow): boolean {
  const values = responseValues(earlier);
  if (values.length === 0) return false;
  const tokens = requestTokens(later);
  const text = `${later.url}\n${later.request_body ?? ''}\n${later.request_payload === null ? '' : JSON.stringify(later.request_payload)}`;
  return values.some((value) => tokens.has(value) || (value.length >= SUBSTRING_MIN && text.includes(value)));
}

function responseValues(row: HttpRow): string[] {
  const out: string[] = [];
  const location = row.response_headers?.location;
  if (location) out.push(location, ...urlTokens(location));
  leaves(row.response_capture?.cards, out);
  return out;
}

function requestTokens(row: HttpRow): Set<string> {
  const tokens = new Set<string>(urlTokens(row.url));
  const values: string[] = [];
  leaves(row.request_payload, values);
  for (const value of values) tokens.add(value);
  return tokens;
}

function urlTokens(url: string): string[] {
  try {
    const parsed = new URL(url, 'http://relative.invalid');
    const out = parsed.pathname.split('/').filter(Boolean).map(decodeSafe);
    for (const value of parsed.searchParams.values()) out.push(value);
    return out;
  } catch {
    return [];
  }
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** String and number leaves of a JSON value, breadth first, up to MAX_VALUES. */
function leaves(value: unknown, out: string[]): void {
  const queue: unknown[] = [value];
  for (let i = 0; i < queue.length && out.length < MAX_VALUES; i++) {
    const item = queue[i];
    if (typeof item === 'string') {
      if (item.length > 0 && item.length <= MAX_TEXT && !MASKED.test(item)) out.push(item);
    } else if (typeof item === 'number' && Number.isFinite(item)) out.push(String(item));
    else if (Array.isArray(item)) {
      if (queue.length < MAX_VALUES * 2) queue.push(...item.slice(0, MAX_VALUES));
    } else if (item !== null && typeof item === 'object') {
      if (queue.length < MAX_VALUES * 2) queue.push(...Object.values(item).slice(0, MAX_VALUES));
    }
  }
}
