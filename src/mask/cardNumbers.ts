import type { ScanStats } from './credentialValues';
import { maskHits } from './maskHits';

/**
 * Masks payment card numbers wherever they sit in a text, whatever name they are under (`card.number`,
 * `card[number]`, `pan`, a query value, a text body): a number is masked, whole, when
 *
 * - it is 13 to 19 digits, written together (`4242424242424242`) or in groups joined by one kind of separator,
 *   a space, `-` or `+` (`4242 4242 4242 4242`, `3782-822463-10005`): a first group of 4 digits, then groups of 3
 *   to 6, the last of 1 to 6;
 * - its first digits and length are those of a card scheme (cardShape): Visa `4` (13, 16, 19 digits),
 *   Mastercard `51`–`55` and `2221`–`2720` (16), Amex `34`, `37` (15), Diners `300`–`305`, `36`, `38`, `39`
 *   (14–19), JCB `3528`–`3589` (16–19), Mir `2200`–`2204` (16–19), Maestro `50`, `56`–`59` and every `6`
 *   (Discover, UnionPay; 13–19);
 * - its check digit is right (Luhn);
 * - it stands alone: no letter, digit, `_` or `.` before it (a `%XX` or `\n` escape may be), none of these after
 *   it, and no separator joining it to more digits before.
 *
 * A time in milliseconds (13 digits) or in micro- or nanoseconds starts with `1`, and so do today's snowflake
 * ids: no card scheme starts so. An id of 13 to 19 digits that starts like a card still has one chance in ten
 * of a right check digit, and is masked then.
 *
 * One pass: a regular expression of fixed width (no backtracking past 8 characters) finds where a number may
 * start; from there its digits and groups are read once, and the search goes on past them, so no character is
 * read twice: linear in the text.
 */
export function maskCardNumbers(text: string, stats?: ScanStats): string {
  const hits = findCards(text, stats, false);
  return hits === null ? text : maskHits(text, hits);
}

/** True when maskCardNumbers would mask something in `text`. */
export function holdsCardNumber(text: string, stats?: ScanStats): boolean {
  return findCards(text, stats, true) !== null;
}

/**
 * A JSON number that is a card number: an integer read as its digits. Past 2^53 JSON.parse has already rounded
 * it (its check digit tells nothing any more), so there its first digits and length decide alone.
 */
export function isCardNumberValue(value: number): boolean {
  if (!Number.isInteger(value) || value < 1e12 || value >= 1e19) return false;
  const digits = String(value);
  return Number.isSafeInteger(value) ? cardShape(digits) && luhn(digits) : cardShape(digits);
}

/** Four digits, the first 2 to 6, then a fifth digit or a separator and three digits: where a card may start. */
const START = /[2-6][0-9]{3}(?:[0-9]|[ +-][0-9]{3})/g;

function findCards(text: string, stats: ScanStats | undefined, firstOnly: boolean): Array<[number, number]> | null {
  START.lastIndex = 0;
  if (stats) stats.steps += text.length;
  let hits: Array<[number, number]> | null = null;
  for (let found = START.exec(text); found !== null; found = START.exec(text)) {
    const at = found.index;
    const read = readNumber(text, at);
    if (stats) stats.steps += read.end - at;
    if (read.digits !== null && boundaryBefore(text, at) && cardShape(read.digits) && luhn(read.digits)) {
      (hits ??= []).push([at, read.end]);
      if (firstOnly) return hits;
    }
    // On past every digit read: a start inside them has a digit or a separator before it, so it is none.
    START.lastIndex = Math.max(read.end, at + 1);
  }
  return hits;
}

/**
 * The number written from `at`: its digits when it is written as a card number and ends there (null otherwise),
 * and where the reading stopped (past every digit and separator it read).
 */
function readNumber(text: string, at: number): { digits: string | null; end: number } {
  const first = digitsFrom(text, at);
  const after = text.charCodeAt(first);
  if (first - at > 4 || !isSeparator(after) || !isDigit(text.charCodeAt(first + 1))) {
    // Written together (or four digits and no group after them).
    const digits = first - at >= 13 && first - at <= 19 && endsThere(text, first) ? text.slice(at, first) : null;
    return { digits, end: first };
  }
  let digits = text.slice(at, first);
  let end = first;
  let groups = true;
  let short = false; // a group of fewer than 3 digits: only the last may be one
  while (text.charCodeAt(end) === after && isDigit(text.charCodeAt(end + 1))) {
    const next = digitsFrom(text, end + 1);
    const size = next - end - 1;
    if (short || size > 6) groups = false;
    short = size < 3;
    // Past 19 digits it is no card; the rest is read only to step past it.
    if (groups && digits.length + size <= 19) digits += text.slice(end + 1, next);
    else groups = false;
    end = next;
  }
  // A different separator joining more digits: not one number written one way.
  const joined = isSeparator(text.charCodeAt(end)) && isDigit(text.charCodeAt(end + 1));
  const ok = groups && digits.length >= 13 && !joined && endsThere(text, end);
  return { digits: ok ? digits : null, end };
}

function digitsFrom(text: string, from: number): number {
  let k = from;
  while (isDigit(text.charCodeAt(k))) k++;
  return k;
}

/** No letter, digit or `_` after the number, and no `.` starting decimals. */
function endsThere(text: string, end: number): boolean {
  const c = text.charCodeAt(end);
  if (c === 0x2e) return !isDigit(text.charCodeAt(end + 1));
  return !isWordChar(c);
}

/** The start of the text; after a `%XX` or `\n`-style escape; or after a character that is no letter, digit, `_` or `.`, nor a separator after a digit. */
function boundaryBefore(text: string, at: number): boolean {
  if (at === 0) return true;
  const prev = text.charCodeAt(at - 1);
  if (at >= 3 && text.charCodeAt(at - 3) === 0x25 && isHex(text.charCodeAt(at - 2)) && isHex(prev)) return true;
  if (at >= 2 && text.charCodeAt(at - 2) === 0x5c && (prev === 0x6e || prev === 0x72 || prev === 0x74)) return true;
  if (isWordChar(prev) || prev === 0x2e) return false;
  return !(isSeparator(prev) && at >= 2 && isDigit(text.charCodeAt(at - 2)));
}

/** The first digits and the length of a card scheme (see maskCardNumbers). */
export function cardShape(digits: string): boolean {
  const n = digits.length;
  if (n < 13 || n > 19) return false;
  const two = Number(digits.slice(0, 2));
  const three = Number(digits.slice(0, 3));
  const four = Number(digits.slice(0, 4));
  switch (digits.charCodeAt(0) - 0x30) {
    case 2:
      return (four >= 2221 && four <= 2720 && n === 16) || (four >= 2200 && four <= 2204 && n >= 16);
    case 3:
      return (
        ((two === 34 || two === 37) && n === 15) ||
        (((three >= 300 && three <= 305) || two === 36 || two === 38 || two === 39) && n >= 14) ||
        (four >= 3528 && four <= 3589 && n >= 16)
      );
    case 4:
      return n === 13 || n === 16 || n === 19;
    case 5:
      return two >= 51 && two <= 55 ? n === 16 : true;
    case 6:
      return true;
    default:
      return false;
  }
}

/** The Luhn check digit is right. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 0x30;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isWordChar(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isSeparator(c: number): boolean {
  return c === 0x20 || c === 0x2d || c === 0x2b;
}
