import { MASKED } from './FullMask';

/**
 * Masks secret-named values in text that does not parse as a whole: a JSON body cut at `max_body_bytes`,
 * invalid JSON, JSON lines, JSON sent under another content type, the raw text of an event stream. Two
 * kinds of pair are read, wherever they sit:
 *
 * - `"name": value`: a string (to its closing quote, or to the end of the text when the cut fell inside
 *   it), a number, `true`/`false` or any other bare word, or an object or array (to its matching bracket,
 *   or to the end) becomes `"********"`; `null` stays, as it does in parsed JSON.
 * - `name=value` (form fields, query strings in any text): the value up to `&`, `;`, `#`, a quote, `<`,
 *   `>`, a backslash or white space becomes `********`.
 *
 * - `name: value` with the name unquoted (YAML and log lines, GraphQL arguments, JavaScript objects): the name
 *   starts the text or follows white space, `(`, `{`, `[` or `,`; the value on the same line is a string in
 *   double quotes (`"""` blocks too) or single quotes, or one bare word (two after `Bearer`, `Basic`,
 *   `Token`, `Bot`: `Authorization: Bearer abc`). A GraphQL variable (`$pw`), an object, a list, a block
 *   scalar, `null` and `~` are left as written.
 *
 * One pass, left to right; each pair looks back at most NAME_MAX characters for its name and a masked
 * value is skipped whole, so the time is linear in the text whatever it holds. Pairs are found by their
 * own characters, not by tracking the state of the whole text, so a stray quote earlier in the text
 * cannot hide a pair. JSON inside a JSON string (`"{\"password\": …}"`) is not read.
 */
export function maskTextPairs(text: string, isSecret: (name: string) => boolean): string {
  if (!text.includes(':') && !text.includes('=')) return text;
  let out = '';
  let copied = 0; // text before this index is in `out` (or was replaced)
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== COLON && c !== EQUALS) {
      i++;
      continue;
    }
    const quoted = c === COLON ? jsonNameBefore(text, i) : null;
    const name = c === EQUALS ? formNameBefore(text, i) : (quoted ?? bareNameBefore(text, i));
    if (name === null || !isSecret(name)) {
      i++;
      continue;
    }
    const span = c === EQUALS ? formValueAfter(text, i + 1) : quoted !== null ? jsonValueAfter(text, i + 1) : bareValueAfter(text, i + 1);
    if (span === null) {
      i++;
      continue;
    }
    out += text.slice(copied, span.start) + span.replacement;
    copied = span.end;
    i = Math.max(span.end, i + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const COLON = 0x3a;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Names longer than this are not read (no field or parameter name is); it bounds each look back. */
export const NAME_MAX = 128;

interface Span {
  start: number;
  end: number;
  replacement: string;
}

export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** True when the quote at `at` is escaped: an odd run of backslashes before it (counted back to `floor`). */
export function escaped(text: string, at: number, floor: number): boolean {
  let run = 0;
  for (let k = at - 1; k >= floor && text.charCodeAt(k) === BACKSLASH; k--) run++;
  return run % 2 === 1;
}

/** The name of `"name"` + white space before the colon at `colon`, JSON escapes decoded; else null. */
function jsonNameBefore(text: string, colon: number): string | null {
  let close = colon - 1;
  while (close >= 0 && isSpace(text.charCodeAt(close))) close--;
  if (close < 1 || text.charCodeAt(close) !== QUOTE) return null;
  const floor = Math.max(0, close - NAME_MAX - 1);
  if (escaped(text, close, floor)) return null;
  let open = close - 1;
  for (; open >= floor; open--) {
    const c = text.charCodeAt(open);
    if (c === 0x0a || c === 0x0d) return null;
    if (c === QUOTE && !escaped(text, open, floor)) break;
  }
  if (open < floor) return null;
  const raw = text.slice(open + 1, close);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** What a JSON value starting at or after `from` (after white space) spans, masked; null when there is none. */
function jsonValueAfter(text: string, from: number): Span | null {
  let start = from;
  while (start < text.length && isSpace(text.charCodeAt(start))) start++;
  if (start >= text.length) return null;
  const c = text.charCodeAt(start);
  if (c === QUOTE) {
    const end = stringEnd(text, start + 1);
    // A value cut before its closing quote is masked to the end and left open, as the text was.
    return { start, end: end < 0 ? text.length : end, replacement: end < 0 ? `"${MASKED}` : `"${MASKED}"` };
  }
  if (c === 0x7b || c === 0x5b) return { start, end: containerEnd(text, start), replacement: `"${MASKED}"` };
  let end = start;
  while (end < text.length && !endsBareWord(text.charCodeAt(end))) end++;
  if (end === start) return null;
  const word = text.slice(start, end);
  return word === 'null' ? null : { start, end, replacement: `"${MASKED}"` };
}

/** A bare word (number, literal, anything unquoted) ends at white space or JSON punctuation. */
function endsBareWord(c: number): boolean {
  return isSpace(c) || c === 0x2c || c === 0x7d || c === 0x5d || c === QUOTE || c === COLON;
}

/** The index after the closing quote of a string whose content starts at `from`; -1 when the text ends first. */
function stringEnd(text: string, from: number): number {
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === BACKSLASH) k++;
    else if (c === QUOTE) return k + 1;
  }
  return -1;
}

/** The index after the bracket closing the object or array at `open` (strings skipped), or the text's length. */
function containerEnd(text: string, open: number): number {
  let depth = 0;
  for (let k = open; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === QUOTE) {
      const end = stringEnd(text, k + 1);
      if (end < 0) break;
      k = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return k + 1;
  }
  return text.length;
}

/** Characters of a form or query name: `card%5Bnumber%5D`, `user[password]`, `api-key`, `a.b`, `first+name`. */
export function isFormNameChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x25 ||
    c === 0x2b ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x7e ||
    c >= 0x80
  );
}

/** What may come before a form name: the start, a separator, white space, a quote or an opening bracket. */
function startsFormName(c: number): boolean {
  return (
    isSpace(c) || c === 0x26 || c === 0x3f || c === 0x23 || c === 0x3b || c === 0x2c || c === QUOTE || c === 0x27 || c === 0x28 || c === 0x7b || c === BACKSLASH
  );
}

/** The decoded name of `name=` before the `=` at `equals`, when it starts a pair; else null. */
function formNameBefore(text: string, equals: number): string | null {
  const floor = Math.max(0, equals - NAME_MAX);
  let start = equals;
  while (start > floor && isFormNameChar(text.charCodeAt(start - 1))) start--;
  if (start === equals) return null;
  if (start > 0 && !startsFormName(text.charCodeAt(start - 1))) return null;
  const raw = text.slice(start, equals);
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The value of `name=value` from `from`: up to a separator, a quote, markup, a backslash or white space. */
function formValueAfter(text: string, from: number): Span | null {
  let end = from;
  while (end < text.length && !endsFormValue(text.charCodeAt(end))) end++;
  return end === from ? null : { start: from, end, replacement: MASKED };
}

function endsFormValue(c: number): boolean {
  return isSpace(c) || c === 0x26 || c === 0x3b || c === 0x23 || c === QUOTE || c === 0x27 || c === 0x3c || c === 0x3e || c === BACKSLASH;
}

/** GraphQL and YAML names: a letter or `_`, then letters, digits, `_`, `-`, `.`. */
export function isBareNameChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d || c === 0x2e;
}

/** The unquoted name of `name:` (spaces or tabs allowed before the colon) when it starts a pair; else null. */
function bareNameBefore(text: string, colon: number): string | null {
  let end = colon;
  while (end > 0 && colon - end < 4 && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  const floor = Math.max(0, end - NAME_MAX);
  let start = end;
  while (start > floor && isBareNameChar(text.charCodeAt(start - 1))) start--;
  if (start === end) return null;
  const first = text.charCodeAt(start);
  if (!((first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a) || first === 0x5f)) return null;
  if (start > 0) {
    const before = text.charCodeAt(start - 1);
    if (!isSpace(before) && before !== 0x28 && before !== 0x7b && before !== 0x5b && before !== 0x2c) return null;
  }
  return text.slice(start, end);
}

/** Auth schemes written before the credential: `Authorization: Bearer abc` masks both words. */
const SCHEMES = new Set(['bearer', 'basic', 'token', 'bot', 'digest', 'negotiate']);

/** The value of an unquoted `name:` pair on its line (see maskTextPairs); null when there is none to mask. */
function bareValueAfter(text: string, from: number): Span | null {
  let start = from;
  while (start < text.length && (text.charCodeAt(start) === 0x20 || text.charCodeAt(start) === 0x09)) start++;
  if (start >= text.length) return null;
  const c = text.charCodeAt(start);
  if (c === QUOTE) {
    if (text.startsWith('"""', start)) {
      const close = text.indexOf('"""', start + 3);
      return { start, end: close < 0 ? text.length : close + 3, replacement: `"${MASKED}"` };
    }
    const end = stringEnd(text, start + 1);
    return { start, end: end < 0 ? text.length : end, replacement: end < 0 ? `"${MASKED}` : `"${MASKED}"` };
  }
  if (c === BACKSLASH && text.charCodeAt(start + 1) === QUOTE) {
    // A string inside JSON text (`"query": "{ login(password: \"x\") }"`, a body cut before it parsed).
    const close = text.indexOf('\\"', start + 2);
    return { start, end: close < 0 ? text.length : close + 2, replacement: `\\"${MASKED}\\"` };
  }
  if (c === 0x27) {
    let end = start + 1;
    while (end < text.length && text.charCodeAt(end) !== 0x27 && text.charCodeAt(end) !== 0x0a) end++;
    return { start, end: text.charCodeAt(end) === 0x27 ? end + 1 : end, replacement: `'${MASKED}'` };
  }
  let end = wordEnd(text, start);
  if (end === start) return null;
  const word = text.slice(start, end);
  if (word === 'null' || word === '~' || '$|>&*!{['.includes(word[0]!)) return null;
  if (SCHEMES.has(word.toLowerCase()) && text.charCodeAt(end) === 0x20) {
    const next = wordEnd(text, end + 1);
    if (next > end + 1) end = next;
  }
  return { start, end, replacement: MASKED };
}

function wordEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && !endsBareValue(text.charCodeAt(end))) end++;
  return end;
}

function endsBareValue(c: number): boolean {
  return (
    isSpace(c) ||
    c === 0x2c ||
    c === 0x3b ||
    c === 0x26 ||
    c === 0x29 ||
    c === 0x7d ||
    c === 0x5d ||
    c === QUOTE ||
    c === 0x27 ||
    c === 0x3c ||
    c === 0x3e ||
    c === BACKSLASH
  );
}
