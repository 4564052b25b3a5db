import { holdsCredential, type ScanStats } from './credentialValues';
import { NAME_MAX, isBareNameChar, isFormNameChar, isSpace, maskTextPairs } from './maskText';

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
 * Linear: the credential scan (linear, see there), one native copy of the text's code units into a typed
 * array (codesOf), then one pass over them. Each character is read once by the pass, except inside strings
 * past their first WALK characters, where the next quote, backslash, colon and equals sign are each found by
 * indexOf from where the last one found of that character was passed: those searches read disjoint stretches
 * per character, so the whole text at most four times more (StringJumps). Each `:` and `=` looks back over the
 * name before it, and names before different separators do not overlap (a separator is no name character;
 * quoted names end at distinct quotes); the name memo compares a name with at most two held names, each read
 * once for the comparison (no more than reading the name); each escaped string is decoded once.
 *
 * Its answers are those of the pre-scan it replaced (test/helpers/jsonPrescanBefore.ts), checked on generated
 * bodies by test/mask/prescan-equivalence.test.ts; bench/prescan.mjs measures both.
 */
export function jsonMayNeedMasking(text: string, isSecret: (name: string) => boolean, stats?: ScanStats): boolean {
  if (holdsCredential(text, stats)) return true;
  const counter = stats ?? { steps: 0 };
  const length = text.length;
  counter.steps += length;
  const codes = codesOf(text);
  try {
    return scanFrom(text, codes, isSecret, counter);
  } finally {
    if (codes.buffer === scratch?.buffer) scratchBusy = false;
  }
}

function scanFrom(text: string, codes: Uint16Array, isSecret: (name: string) => boolean, counter: ScanStats): boolean {
  const length = text.length;
  const names = new NameMemo(text, codes, isSecret, counter);
  const jumps = new StringJumps(text, codes);
  let stringStart = -1; // the opening quote of the string being read, or -1 outside strings
  let escapes = false; // the string being read holds a backslash escape
  // The last string read to its end: a member name, when a colon follows it.
  let lastOpen = -1;
  let lastClose = -1;
  let lastEscapes = false;
  for (let i = 0; i < length; i++) {
    // Most characters are none of the four this scan reads: one look-up in a table, no test.
    const kind = KIND[codes[i]!]!;
    if (kind === 0) continue;
    if (kind === COLON_KIND) {
      // `"name":` outside strings, the name being the string just read (what quotedNameBefore would find, as
      // it ends at an unescaped quote and holds no unescaped one): its answer without reading it again, and no
      // bare name can end at its quote. Anything else is read the long way.
      const known =
        stringStart < 0 &&
        lastClose >= 0 &&
        !lastEscapes &&
        (lastClose === i - 1 || lastBefore(codes, i) === lastClose) &&
        (lastOpen === 0 || codes[lastOpen - 1] !== BACKSLASH);
      if (known ? names.secretAt(lastOpen + 1, lastClose) : quotedNameBefore(text, codes, i, names, counter) || bareNameBefore(codes, i, names, counter))
        return true;
      if (stringStart >= 0) i = jumps.skip(i + 1) - 1;
    } else if (kind === EQUALS_KIND) {
      if (formNameBefore(text, codes, i, names, counter)) return true;
      if (stringStart >= 0) i = jumps.skip(i + 1) - 1;
    } else if (kind === QUOTE_KIND) {
      if (stringStart < 0) {
        stringStart = i;
        escapes = false;
        i = jumps.skip(i + 1) - 1;
      } else {
        if (escapes && escapedStringMayNeedMasking(text, stringStart, i, names, counter)) return true;
        lastOpen = stringStart;
        lastClose = i;
        lastEscapes = escapes;
        stringStart = -1;
      }
    } else if (stringStart >= 0) {
      // A backslash in a string. The escaped character is read for `:` and `=` here, but cannot end the string.
      escapes = true;
      if (i + 1 < length) {
        i++;
        counter.steps++;
        const next = codes[i]!;
        if (next === COLON && (quotedNameBefore(text, codes, i, names, counter) || bareNameBefore(codes, i, names, counter))) return true;
        if (next === EQUALS && formNameBefore(text, codes, i, names, counter)) return true;
        i = jumps.skip(i + 1) - 1;
      }
    }
  }
  return false;
}

/**
 * What the scan reads each UTF-16 code unit as: nothing (0), or one of the four it acts on. A table of all of
 * them (64 KiB) rather than of ASCII: a look-up without a range test first was about a quarter faster.
 */
const QUOTE_KIND = 1;
const BACKSLASH_KIND = 2;
const COLON_KIND = 3;
const EQUALS_KIND = 4;
const KIND = new Uint8Array(65536);
KIND[QUOTE] = QUOTE_KIND;
KIND[BACKSLASH] = BACKSLASH_KIND;
KIND[COLON] = COLON_KIND;
KIND[EQUALS] = EQUALS_KIND;

/**
 * The text's UTF-16 code units in a typed array, in one native copy: V8 reads an element of one about twice
 * as fast as it runs charCodeAt, and this scan reads every character (bench/prescan.mjs). Texts up to
 * SCRATCH_MAX / 2 characters are copied into one buffer kept for the next call (captures are built one at a
 * time on the store's thread, and no view of it outlives a call), grown in powers of two to the longest text
 * met; longer ones into their own (a fresh buffer of a megabyte per body cost a fifth of the scan at 500 KB).
 */
function codesOf(text: string): Uint16Array {
  const bytes = text.length * 2;
  if (NodeBuffer === undefined) return codesRead(text);
  if (bytes > SCRATCH_MAX || scratchBusy) return viewOf(NodeBuffer.from(text, 'utf16le'), text);
  if (scratch === undefined || scratch.length < bytes) {
    let size = SCRATCH_MIN;
    while (size < bytes) size *= 2;
    scratch = NodeBuffer.allocUnsafeSlow(size);
  }
  scratchBusy = true;
  scratch.write(text, 0, bytes, 'utf16le');
  return viewOf(scratch, text);
}

/** Node's Buffer, as used here: declared, not imported, as the dashboard's browser build type-checks this file too. */
interface NodeBufferLike extends Uint8Array {
  write(text: string, offset: number, length: number, encoding: 'utf16le'): number;
  swap16(): unknown;
}
const NodeBuffer = (
  globalThis as {
    Buffer?: { from(text: string, encoding: 'utf16le'): NodeBufferLike; allocUnsafeSlow(size: number): NodeBufferLike };
  }
).Buffer;

const SCRATCH_MIN = 64 * 1024;
const SCRATCH_MAX = 1024 * 1024;
let scratch: NodeBufferLike | undefined;
/** True while a scan reads the scratch buffer (no scan runs inside another today; if one ever did, it would copy). */
let scratchBusy = false;
const BIG_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 0;

function viewOf(buffer: NodeBufferLike, text: string): Uint16Array {
  // Node's pool is aligned to 8 bytes and larger buffers have memory of their own: an odd offset is not
  // expected, but would throw, so it is read the slow way.
  if (buffer.byteOffset % 2 !== 0) return codesRead(text);
  // Buffer writes UTF-16 little-endian; a Uint16Array reads in the machine's order.
  if (BIG_ENDIAN) (buffer.subarray(0, text.length * 2) as NodeBufferLike).swap16();
  return new Uint16Array(buffer.buffer, buffer.byteOffset, text.length);
}

/** The code units read one by one (no Buffer here). */
function codesRead(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let k = 0; k < text.length; k++) codes[k] = text.charCodeAt(k);
  return codes;
}

/**
 * Inside a string only its quote, backslashes, colons and equals signs matter. A string's first characters
 * are read here one by one (most strings are short, and a call costs more than reading a few); past
 * WALK of them with none of the four, the next of each is found by indexOf (native, many characters a step)
 * and the scan jumps to the nearest. Each of the four is searched again only once the scan has passed the
 * one found, from there: each search reads text no other search of its character reads, so the searches of
 * a whole text read it at most four times (linear).
 */
const WALK = 16;

class StringJumps {
  private quote = -1;
  private backslash = -1;
  private colon = -1;
  private equals = -1;

  constructor(
    private readonly text: string,
    private readonly codes: Uint16Array,
  ) {}

  /** The position of the next quote, backslash, colon or equals sign from `from` (the text's length if none). */
  skip(from: number): number {
    const codes = this.codes;
    const length = codes.length;
    const walked = Math.min(length, from + WALK);
    for (let k = from; k < walked; k++) {
      if (KIND[codes[k]!] !== 0) return k;
    }
    if (walked === length) return length;
    if (this.quote < walked) this.quote = nextOf(this.text, '"', walked);
    if (this.backslash < walked) this.backslash = nextOf(this.text, '\\', walked);
    if (this.colon < walked) this.colon = nextOf(this.text, ':', walked);
    if (this.equals < walked) this.equals = nextOf(this.text, '=', walked);
    return Math.min(this.quote, this.backslash, this.colon, this.equals);
  }
}

/** Where `char` next occurs from `from` on, or the text's length. */
function nextOf(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at < 0 ? text.length : at;
}

/** The last character before `at` that is not white space (-1 if none): read back over the spaces before a colon only. */
function lastBefore(codes: Uint16Array, at: number): number {
  let k = at - 1;
  while (k >= 0 && isSpace(codes[k]!)) k--;
  return k;
}

/**
 * A string with escapes, decoded and read as Masker.text reads a string value; true when it cannot be decoded.
 * The last one found clean is remembered as written: a page of records repeats such strings, and the same
 * text gives the same answer without a decode.
 */
function escapedStringMayNeedMasking(text: string, open: number, close: number, names: NameMemo, counter: ScanStats): boolean {
  counter.steps += close - open;
  if (names.cleanEscapedAt(open, close)) return false;
  const raw = text.slice(open, close + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return true;
  }
  if (typeof value !== 'string') return true;
  if (maskTextPairs(value, names.isSecret) !== value || holdsCredential(value, counter)) return true;
  names.cleanEscapedOpen = open;
  names.cleanEscapedLength = close + 1 - open;
  return false;
}

/** `"name"` + white space before the colon at `colon`, of any length, decoded: secret, or `__proto__`. */
function quotedNameBefore(text: string, codes: Uint16Array, colon: number, names: NameMemo, counter: ScanStats): boolean {
  let close = colon - 1;
  while (close >= 0 && isSpace(codes[close]!)) close--;
  counter.steps += colon - close;
  if (close < 1 || codes[close] !== QUOTE || escapedAt(codes, close, counter)) return false;
  let open = close - 1;
  while (open >= 0 && !(codes[open] === QUOTE && !escapedAt(codes, open, counter))) open--;
  counter.steps += close - open;
  if (open < 0) return false;
  let escapes = false;
  for (let k = open + 1; k < close && !escapes; k++) escapes = codes[k] === BACKSLASH;
  if (!escapes) return names.secretAt(open + 1, close);
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
function escapedAt(codes: Uint16Array, at: number, counter: ScanStats): boolean {
  let run = 0;
  while (at - run > 0 && codes[at - run - 1] === BACKSLASH) run++;
  counter.steps += run;
  return run % 2 === 1;
}

/** The run of name characters before `end`, when it is at most NAME_MAX long (maskTextPairs reads no longer one). */
function runBefore(codes: Uint16Array, end: number, nameClass: number, counter: ScanStats): number {
  let start = end;
  while (start > 0 && end - start <= NAME_MAX && isNameCode(codes[start - 1]!, nameClass)) start--;
  counter.steps += end - start;
  return end - start > NAME_MAX ? end : start;
}

/** maskText's name characters (all ASCII) as bits of a table: a look-up, not a call per character. */
const BARE = 1;
const FORM = 2;
const NAME_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) NAME_CLASS[c] = (isBareNameChar(c) ? BARE : 0) | (isFormNameChar(c) ? FORM : 0);

function isNameCode(c: number, nameClass: number): boolean {
  return c < 128 ? (NAME_CLASS[c]! & nameClass) !== 0 : nameClass === BARE ? isBareNameChar(c) : isFormNameChar(c);
}

/** An unquoted `name:` (up to four spaces or tabs before the colon), whatever comes before the name. */
function bareNameBefore(codes: Uint16Array, colon: number, names: NameMemo, counter: ScanStats): boolean {
  let end = colon;
  while (end > 0 && colon - end < 4 && (codes[end - 1] === 0x20 || codes[end - 1] === 0x09)) end--;
  const start = runBefore(codes, end, BARE, counter);
  return start < end && names.secretAt(start, end);
}

/** A `name=` (form, query), decoded as maskTextPairs decodes it, whatever comes before the name. */
function formNameBefore(text: string, codes: Uint16Array, equals: number, names: NameMemo, counter: ScanStats): boolean {
  const start = runBefore(codes, equals, FORM, counter);
  if (start === equals) return false;
  // A name with nothing to decode (the common case: `page=2&sort=asc`) is asked of the memo, not sliced.
  let k = start;
  while (k < equals && codes[k] !== 0x25 && codes[k] !== 0x2b) k++;
  if (k === equals) return names.secretAt(start, equals);
  const raw = text.slice(start, equals);
  try {
    return names.secret(decodeURIComponent(raw.replace(/\+/g, ' ')));
  } catch {
    return names.secret(raw);
  }
}

/** Slots of the name memo (pairs): a page's member names (tens) and the names read in its strings seldom share one. */
const SLOTS = 512;
const memoStarts = new Int32Array(SLOTS);
const memoLengths = new Int32Array(SLOTS);
const memoAnswers = new Uint8Array(SLOTS);
const memoScans = new Int32Array(SLOTS);
let scans = 0;

/** A number no slot holds yet: the scans are counted, and the slots emptied when the count wraps. */
function nextScan(): number {
  scans = (scans + 1) | 0;
  if (scans <= 0) {
    memoScans.fill(0);
    scans = 1;
  }
  return scans;
}

/**
 * The secret-name answer for names read in the text, asked of isSecret once per name held in a slot (by length
 * and three of its characters): a page of records repeats its member names. A slot holds where the name was
 * first read, so a name is compared in place, character by character, and never sliced when it was read before
 * (a `slice` per member was the pre-scan's largest allocation: bench/NOTES.md). A name counts as secret
 * here when it is `__proto__` too.
 */
class NameMemo {
  // The slots are shared by all scans (no arrays to allocate per body, which a small one would feel); a slot
  // belongs to this scan when it holds this scan's number (a scan inside another would only make it miss).
  private readonly starts = memoStarts;
  private readonly lengths = memoLengths;
  private readonly answers = memoAnswers;
  private readonly scans = memoScans;
  private readonly scan = nextScan();

  /** The last string with an escape found to need no masking, as written (quotes included): where, how long. */
  cleanEscapedOpen = -1;
  cleanEscapedLength = 0;

  constructor(
    private readonly text: string,
    private readonly codes: Uint16Array,
    readonly isSecret: (name: string) => boolean,
    private readonly counter: ScanStats,
  ) {}

  /** The answer for the name `text[start, end)`. */
  secretAt(start: number, end: number): boolean {
    const codes = this.codes;
    const length = end - start;
    this.counter.steps += length;
    if (length === 0) return this.secret('');
    // Two slots a key, the newest name first: names whose keys meet (`twice` and `currency` in the bench's page)
    // then do not evict each other on every record.
    const slot = (length * 61 + codes[start]! * 7 + codes[start + (length >> 1)]! * 31 + codes[end - 1]! * 3) & (SLOTS - 2);
    if (this.holds(slot, start, length)) return this.answers[slot] === 1;
    if (this.holds(slot + 1, start, length)) return this.answers[slot + 1] === 1;
    const answer = this.secret(this.text.slice(start, end));
    this.scans[slot + 1] = this.scans[slot]!;
    this.starts[slot + 1] = this.starts[slot]!;
    this.lengths[slot + 1] = this.lengths[slot]!;
    this.answers[slot + 1] = this.answers[slot]!;
    this.scans[slot] = this.scan;
    this.starts[slot] = start;
    this.lengths[slot] = length;
    this.answers[slot] = answer ? 1 : 0;
    return answer;
  }

  /** The slot holds the name `text[start, start + length)` (compared in place: names are short). */
  private holds(slot: number, start: number, length: number): boolean {
    if (this.scans[slot] !== this.scan || this.lengths[slot] !== length) return false;
    const known = this.starts[slot]!;
    const codes = this.codes;
    let k = 0;
    while (k < length && codes[start + k] === codes[known + k]) k++;
    return k === length;
  }

  /** The string `text[open, close]` is written as the last one with an escape found clean. */
  cleanEscapedAt(open: number, close: number): boolean {
    const known = this.cleanEscapedOpen;
    const length = close + 1 - open;
    if (known < 0 || this.cleanEscapedLength !== length) return false;
    const codes = this.codes;
    let k = 0;
    while (k < length && codes[open + k] === codes[known + k]) k++;
    return k === length;
  }

  secret(name: string): boolean {
    return name === '__proto__' || this.isSecret(name);
  }
}
