// The JSON pre-scan as it was when issue 28's second pass began (session h-scan: indexOf jumps over strings, a
// memo of names): kept as what the faster pre-scan must agree with (test/mask/prescan-equivalence.test.ts) and
// what bench/prescan.mjs measures it against. Not used by Probe.
import { holdsCredential } from './credentialScanBefore';
import { type ScanStats } from '../../src/mask/credentialValues';
import { NAME_MAX, isBareNameChar, isFormNameChar, isSpace, maskTextPairs } from '../../src/mask/maskText';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const EQUALS = 0x3d;

/**
 * False only when masking a JSON body would change nothing, so it can be kept as it came, unparsed: no
 * member name is secret (decoded: `"pass\u0077ord"` too, white space before the colon too), no member is
 * named `__proto__` (parsing then copying drops it), no string in it holds a secret-named pair (`"password:
 * x"`, `?token=…`, `a=1&secret=…`) or a credential format, and the text read as text (what is kept when it does
 * not parse) holds neither. Masker.maskValue of its parse then returns an equal value, and Masker.text of the
 * text the text itself.
 *
 * It errs one way only: true whenever it cannot tell. Every `:` and `=` in the text is read as maskTextPairs
 * reads it inside any string or outside, with fewer conditions (any name length for quoted names, no
 * condition on what comes before a name, values not read); a string holding a backslash escape is decoded and
 * read as Masker.text reads a string value. Credentials are looked for by the credential scan over the whole
 * text: a string without escapes reads the same inside the text as alone (its quotes are no token characters).
 *
 * Two linear passes: the credential scan, then this one. Each `:` and `=` looks back over the name before it,
 * and names before different separators do not overlap (a separator is no name character; quoted names
 * end at distinct quotes); each escaped string is decoded once.
 */
export function jsonMayNeedMasking(text: string, isSecret: (name: string) => boolean, stats?: ScanStats): boolean {
  if (holdsCredential(text, stats)) return true;
  const counter = stats ?? { steps: 0 };
  const names = new NameMemo(isSecret, counter);
  let stringStart = -1; // the opening quote of the string being read, or -1 outside strings
  let escapes = false; // the string being read holds a backslash escape
  // The last string read to its end: a member name, when a colon follows it.
  let lastOpen = -1;
  let lastClose = -1;
  let lastEscapes = false;
  const length = text.length;
  counter.steps += length;
  // The next backslash, colon and equals sign past the last string opened (the text's length when none).
  let nextBackslash = -1;
  let nextColon = -1;
  let nextEquals = -1;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === COLON) {
      // `"name":` outside strings, the name being the string just read (what quotedNameBefore would find, as
      // it ends at an unescaped quote and holds no unescaped one): its answer without reading it again, and no
      // bare name can end at its quote. Anything else is read the long way.
      const known =
        stringStart < 0 &&
        lastClose >= 0 &&
        !lastEscapes &&
        (lastClose === i - 1 || lastBefore(text, i) === lastClose) &&
        text.charCodeAt(lastOpen - 1) !== BACKSLASH;
      if (known ? names.secretAt(text, lastOpen + 1, lastClose) : quotedNameBefore(text, i, names, counter) || bareNameBefore(text, i, names, counter))
        return true;
      continue;
    }
    if (c === EQUALS) {
      if (formNameBefore(text, i, names, counter)) return true;
      continue;
    }
    if (stringStart < 0) {
      if (c === QUOTE) {
        stringStart = i;
        escapes = false;
        // A string holding no backslash, colon or equals sign has nothing for this scan but its end: jump there
        // (found by indexOf, as is the next of each of those characters, each searched again only once passed).
        const close = text.indexOf('"', i + 1);
        if (close < 0) continue;
        if (nextBackslash <= i) nextBackslash = nextOf(text, '\\', i + 1);
        if (nextColon <= i) nextColon = nextOf(text, ':', i + 1);
        if (nextEquals <= i) nextEquals = nextOf(text, '=', i + 1);
        if (nextBackslash > close && nextColon > close && nextEquals > close) {
          lastOpen = i;
          lastClose = close;
          lastEscapes = false;
          stringStart = -1;
          i = close;
        }
      }
    } else if (c === BACKSLASH) {
      escapes = true;
      // The escaped character is still read for `:` and `=` above, on the next turn, but cannot end the string.
      if (i + 1 < text.length) {
        i++;
        counter.steps++;
        const next = text.charCodeAt(i);
        if (next === COLON && (quotedNameBefore(text, i, names, counter) || bareNameBefore(text, i, names, counter))) return true;
        if (next === EQUALS && formNameBefore(text, i, names, counter)) return true;
      }
    } else if (c === QUOTE) {
      if (escapes && escapedStringMayNeedMasking(text, stringStart, i, names, counter)) return true;
      lastOpen = stringStart;
      lastClose = i;
      lastEscapes = escapes;
      stringStart = -1;
    }
  }
  return false;
}

/** Where `char` next occurs from `from` on, or the text's length. */
function nextOf(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at < 0 ? text.length : at;
}

/** The last character before `at` that is not white space (-1 if none): read back over the spaces before a colon only. */
function lastBefore(text: string, at: number): number {
  let k = at - 1;
  while (k >= 0 && isSpace(text.charCodeAt(k))) k--;
  return k;
}

/**
 * A string with escapes, decoded and read as Masker.text reads a string value; true when it cannot be decoded.
 * The last one found clean is remembered as written: a page of records repeats such strings, and the same
 * text gives the same answer without a decode.
 */
function escapedStringMayNeedMasking(text: string, open: number, close: number, names: NameMemo, counter: ScanStats): boolean {
  counter.steps += close - open;
  const known = names.cleanEscaped;
  if (known !== null && known.length === close + 1 - open && text.startsWith(known, open)) return false;
  const raw = text.slice(open, close + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return true;
  }
  if (typeof value !== 'string') return true;
  if (maskTextPairs(value, names.isSecret) !== value || holdsCredential(value, counter)) return true;
  names.cleanEscaped = raw;
  return false;
}

/** `"name"` + white space before the colon at `colon`, of any length, decoded: secret, or `__proto__`. */
function quotedNameBefore(text: string, colon: number, names: NameMemo, counter: ScanStats): boolean {
  let close = colon - 1;
  while (close >= 0 && isSpace(text.charCodeAt(close))) close--;
  counter.steps += colon - close;
  if (close < 1 || text.charCodeAt(close) !== QUOTE || escapedAt(text, close, counter)) return false;
  let open = close - 1;
  while (open >= 0 && !(text.charCodeAt(open) === QUOTE && !escapedAt(text, open, counter))) open--;
  counter.steps += close - open;
  if (open < 0) return false;
  let escapes = false;
  for (let k = open + 1; k < close && !escapes; k++) escapes = text.charCodeAt(k) === BACKSLASH;
  if (!escapes) return names.secretAt(text, open + 1, close);
  const raw = text.slice(open + 1, close);
  let name = raw;
  try {
    name = JSON.parse(`"${raw}"`) as string;
  } catch {
    // Read as written, as maskTextPairs does.
  }
  return names.secret(name);
}

/** True when the quote at `at` is escaped: an odd run of backslashes before it. */
function escapedAt(text: string, at: number, counter: ScanStats): boolean {
  let run = 0;
  while (at - run > 0 && text.charCodeAt(at - run - 1) === BACKSLASH) run++;
  counter.steps += run;
  return run % 2 === 1;
}

/** The run of name characters before `end`, when it is at most NAME_MAX long (maskTextPairs reads no longer one). */
function runBefore(text: string, end: number, isNameChar: (c: number) => boolean, counter: ScanStats): number {
  let start = end;
  while (start > 0 && end - start <= NAME_MAX && isNameChar(text.charCodeAt(start - 1))) start--;
  counter.steps += end - start;
  return end - start > NAME_MAX ? end : start;
}

/** An unquoted `name:` (up to four spaces or tabs before the colon), whatever comes before the name. */
function bareNameBefore(text: string, colon: number, names: NameMemo, counter: ScanStats): boolean {
  let end = colon;
  while (end > 0 && colon - end < 4 && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  const start = runBefore(text, end, isBareNameChar, counter);
  return start < end && names.secretAt(text, start, end);
}

/** A `name=` (form, query), decoded as maskTextPairs decodes it, whatever comes before the name. */
function formNameBefore(text: string, equals: number, names: NameMemo, counter: ScanStats): boolean {
  const start = runBefore(text, equals, isFormNameChar, counter);
  if (start === equals) return false;
  const raw = text.slice(start, equals);
  if (!raw.includes('%') && !raw.includes('+')) return names.secret(raw);
  try {
    return names.secret(decodeURIComponent(raw.replace(/\+/g, ' ')));
  } catch {
    return names.secret(raw);
  }
}

/**
 * The secret-name answer for names read in the text, without a new string for a name read before in
 * its slot (by length and three of its characters): a page of records repeats its member names, and a `slice` per member was the pre-scan's largest
 * allocation (bench/NOTES.md). A name counts as secret here when it is `__proto__` too.
 */
/** `text` holds `name` at `start` (compared here: names are short, and startsWith's call cost more than the loop). */
function sameAt(text: string, start: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (text.charCodeAt(start + k) !== name.charCodeAt(k)) return false;
  return true;
}

/** Slots of the name memo: a page's member names (tens) and the names read in its strings seldom share one. */
const SLOTS = 256;

class NameMemo {
  private readonly names: Array<string | undefined> = new Array<string | undefined>(SLOTS);
  private readonly answers: boolean[] = new Array<boolean>(SLOTS);

  /** The last string with an escape found to need no masking, as written (quotes included). */
  cleanEscaped: string | null = null;

  constructor(
    readonly isSecret: (name: string) => boolean,
    private readonly counter: ScanStats,
  ) {}

  /** The answer for the name `text[start, end)`. */
  secretAt(text: string, start: number, end: number): boolean {
    const length = end - start;
    const slot = (length * 61 + text.charCodeAt(start) * 7 + text.charCodeAt(start + (length >> 1)) * 31 + text.charCodeAt(end - 1) * 3) & (SLOTS - 1);
    const known = this.names[slot];
    this.counter.steps += length;
    if (known !== undefined && known.length === length && sameAt(text, start, known)) return this.answers[slot]!;
    const name = text.slice(start, end);
    const answer = this.secret(name);
    this.names[slot] = name;
    this.answers[slot] = answer;
    return answer;
  }

  secret(name: string): boolean {
    return name === '__proto__' || this.isSecret(name);
  }
}
