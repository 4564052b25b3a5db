import { MASKED } from './FullMask';
import type { ScanStats } from './credentialValues';
import { maskHits } from './maskHits';

/**
 * Masks the password of every `scheme://user:password@` in a text, wherever the URL sits (a JSON or text body, a
 * query value, a header, an exception message, a capture name), the user kept: `postgres://app:********@db/x`.
 * Also written percent-encoded, as a URL in a query value often is (`postgres%3A%2F%2Fapp%3Ap%40db`).
 *
 * One pass, no regular expression over the text: `indexOf('://')` finds each candidate, and its userinfo is read
 * forward to the first character a userinfo cannot hold (`/`, `?`, `#`, white space, a quote, `<`, `>`, a
 * backslash, `&` when encoded). Every `://` starts with `:` and ends with `/`, so the stretches read for two
 * candidates never overlap: each character is read at most once per form, linear in the text.
 */
export function maskUrlPasswords(text: string, stats?: ScanStats): string {
  const hits = findUrlPasswords(text, stats, false);
  return hits === null ? text : maskHits(text, hits);
}

/** True when maskUrlPasswords would mask something in `text`. */
export function holdsUrlPassword(text: string, stats?: ScanStats): boolean {
  return findUrlPasswords(text, stats, true) !== null;
}

/** [from, to) of each password, left to right, or null. */
function findUrlPasswords(text: string, stats: ScanStats | undefined, firstOnly: boolean): Array<[number, number]> | null {
  let hits: Array<[number, number]> | null = null;
  for (const encoded of [false, true]) {
    const marker = encoded ? ENCODED_SCHEME : '://';
    let at = encoded ? indexOfIgnoreCase(text, marker, 0) : text.indexOf(marker);
    while (at >= 0) {
      const hit = encoded ? encodedUserinfo(text, at + marker.length, stats) : plainUserinfo(text, at + marker.length, stats);
      if (hit) {
        (hits ??= []).push(hit);
        if (firstOnly) return hits;
      }
      const next = at + marker.length;
      at = encoded ? indexOfIgnoreCase(text, marker, next) : text.indexOf(marker, next);
    }
  }
  if (hits && hits.length > 1) hits.sort((a, b) => a[0] - b[0]);
  return hits;
}

const ENCODED_SCHEME = '%3a%2f%2f';

/** Characters no userinfo holds as they are (RFC 3986 has them percent-encoded there). */
function endsUserinfo(c: number): boolean {
  return c === 0x2f || c === 0x3f || c === 0x23 || c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e || c === 0x5c || c === 0x60;
}

function plainUserinfo(text: string, from: number, stats?: ScanStats): [number, number] | null {
  let colon = -1;
  let k = from;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x40) break; // @
    if (endsUserinfo(c)) return count(stats, k - from, null);
    if (c === 0x3a && colon < 0) colon = k;
  }
  if (k >= text.length || colon < 0 || k === colon + 1) return count(stats, k - from, null);
  // Already masked (the URL parser's pass, or a second one): nothing new.
  if (text.slice(colon + 1, k) === MASKED) return count(stats, k - from, null);
  return count(stats, k - from, [colon + 1, k]);
}

/** The same in a percent-encoded URL: `%3A` is the colon, `%40` the `@`, `%2F` and `&` end it. */
function encodedUserinfo(text: string, from: number, stats?: ScanStats): [number, number] | null {
  let colon = -1;
  let k = from;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x26 || endsUserinfo(c)) return count(stats, k - from, null);
    if (c !== 0x25) continue;
    const escape = text.slice(k + 1, k + 3).toLowerCase();
    if (escape === '40') break;
    if (escape === '2f' || escape === '3f' || escape === '23') return count(stats, k - from, null);
    if (escape === '3a' && colon < 0) colon = k + 3;
  }
  if (k >= text.length || colon < 0 || k === colon) return count(stats, k - from, null);
  if (text.slice(colon, k) === MASKED) return count(stats, k - from, null);
  return count(stats, k - from, [colon, k]);
}

function count<T>(stats: ScanStats | undefined, steps: number, value: T): T {
  if (stats) stats.steps += steps;
  return value;
}

/** indexOf ignoring ASCII case, for a lower-case needle of `%`, digits and letters. */
function indexOfIgnoreCase(text: string, needle: string, from: number): number {
  let at = text.indexOf('%', from);
  while (at >= 0 && at + needle.length <= text.length) {
    if (text.slice(at, at + needle.length).toLowerCase() === needle) return at;
    at = text.indexOf('%', at + 1);
  }
  return -1;
}
