// The JSON pre-scan as it was before issue 28 cut its cost (every colon read back to its name): kept as the
// reference the faster pre-scan must agree with (test/mask/scan-equivalence.test.ts). Not used by Probe.
import { holdsCredential, type ScanStats } from './credentialScanReference';
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
  for (let i = 0; i < text.length; i++) {
    counter.steps++;
    const c = text.charCodeAt(i);
    if (c === COLON && (quotedNameBefore(text, i, names, counter) || bareNameBefore(text, i, names, counter))) return true;
    if (c === EQUALS && formNameBefore(text, i, names, counter)) return true;
    if (stringStart < 0) {
      if (c === QUOTE) {
        stringStart = i;
        escapes = false;
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
      if (escapes && escapedStringMayNeedMasking(text, stringStart, i, isSecret, counter)) return true;
      stringStart = -1;
    }
  }
  return false;
}

/** A string with escapes, decoded and read as Masker.text reads a string value; true when it cannot be decoded. */
function escapedStringMayNeedMasking(text: string, open: number, close: number, isSecret: (name: string) => boolean, counter: ScanStats): boolean {
  counter.steps += close - open;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(open, close + 1));
  } catch {
    return true;
  }
  if (typeof value !== 'string') return true;
  return maskTextPairs(value, isSecret) !== value || holdsCredential(value, counter);
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
 * The secret-name answer for names read in the text, without a new string for a name read just before in
 * its slot: a page of records repeats its member names, and a `slice` per member was the pre-scan's largest
 * allocation (bench/NOTES.md). A name counts as secret here when it is `__proto__` too.
 */
class NameMemo {
  private readonly names: Array<string | undefined> = new Array<string | undefined>(64);
  private readonly answers: boolean[] = new Array<boolean>(64);

  constructor(
    private readonly isSecret: (name: string) => boolean,
    private readonly counter: ScanStats,
  ) {}

  /** The answer for the name `text[start, end)`. */
  secretAt(text: string, start: number, end: number): boolean {
    const length = end - start;
    const slot = (length * 7 + text.charCodeAt(start) + text.charCodeAt(end - 1) * 3) & 63;
    const known = this.names[slot];
    this.counter.steps += length;
    if (known !== undefined && known.length === length && text.startsWith(known, start)) return this.answers[slot]!;
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
