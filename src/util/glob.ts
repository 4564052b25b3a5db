/**
 * Glob matching in linear time: `*` matches any run of characters (newlines too), `?` one character,
 * everything else itself; the whole text must match. Globs come from people and agents (a capture-name filter,
 * `except`) and run over every capture's name, so neither a RegExp (which backtracks: `*a*a*a*b`) nor the
 * two-pointer walk with one remembered star (text × pattern steps on `*aaa…ab`) will do.
 *
 * The pattern is cut at its stars into parts. The first part must start the text, the last must end it, and
 * each part between takes its leftmost place after the one before: a later star can absorb whatever an
 * earlier place would have left, so leftmost is never wrong. A part is found by Knuth–Morris–Pratt on each of
 * its literal pieces (the runs between its `?`s), every search moving only forward through the text: steps
 * at most (pieces + 1) × 2 × text + pattern. The `?`s in a glob are capped (MAX_QUESTION_MARKS), so the pieces
 * of a part are too, and the whole match is linear in text + pattern.
 */
export interface Glob {
  /** The pattern as given. */
  readonly source: string;
  test(text: string, steps?: GlobSteps): boolean;
}

/** Counts the steps of a match when passed in, so tests can hold the walk to its bound without a clock. */
export interface GlobSteps {
  count: number;
}

/** More `?` than this and a part could hold so many pieces that the search is no longer linear. */
export const MAX_QUESTION_MARKS = 16;

/** A glob that cannot be compiled (too many `?`): the message is one line, for the setting or input that gave it. */
export class GlobError extends Error {
  override readonly name = 'GlobError';
}

/** A glob compiled once: cut into parts at its stars, each part into pieces at its `?`s, with their tables. */
export function compileGlob(source: string, options: { ignoreCase?: boolean } = {}): Glob {
  const ignoreCase = options.ignoreCase ?? false;
  const chars = charsOf(ignoreCase ? source.toLowerCase() : source);
  const marks = chars.filter((char) => char === '?').length;
  if (marks > MAX_QUESTION_MARKS) throw new GlobError(`a glob holds at most ${MAX_QUESTION_MARKS} \`?\` (this one ${marks})`);
  const parts: Part[] = [];
  let current: string[] = [];
  for (const char of chars) {
    if (char === '*') {
      parts.push(partOf(current));
      current = [];
    } else current.push(char);
  }
  parts.push(partOf(current));
  return Object.freeze({
    source,
    test: (text: string, steps?: GlobSteps) => matchParts(parts, charsOf(ignoreCase ? String(text).toLowerCase() : String(text)), steps),
  });
}

/** One match, with its steps counted in `steps` when given. */
export function matchGlob(source: string, text: string, steps?: GlobSteps): boolean {
  return compileGlob(source).test(text, steps);
}

/** By code point, so `?` is one character even outside the Basic Multilingual Plane. */
function charsOf(text: string): string[] {
  return Array.from(text);
}

/** A literal run of a part and where it sits in it. */
interface Piece {
  chars: readonly string[];
  offset: number;
  fallback: Uint32Array;
}

/** What lies between two stars: its length and its literal pieces (the `?` between them match anything). */
interface Part {
  chars: readonly string[];
  pieces: readonly Piece[];
}

function partOf(chars: string[]): Part {
  const pieces: Piece[] = [];
  let start = -1;
  for (let i = 0; i <= chars.length; i++) {
    const literal = i < chars.length && chars[i] !== '?';
    if (literal && start < 0) start = i;
    if (!literal && start >= 0) {
      const piece = chars.slice(start, i);
      pieces.push({ chars: piece, offset: start, fallback: failureTable(piece) });
      start = -1;
    }
  }
  return { chars, pieces };
}

function matchParts(parts: readonly Part[], text: readonly string[], steps?: GlobSteps): boolean {
  const first = parts[0]!;
  if (parts.length === 1) return first.chars.length === text.length && fitsAt(first, text, 0, steps);
  const last = parts[parts.length - 1]!;
  if (first.chars.length + last.chars.length > text.length) return false;
  if (!fitsAt(first, text, 0, steps)) return false;
  const end = text.length - last.chars.length;
  let from = first.chars.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const at = leftmost(parts[i]!, text, from, end, steps);
    if (at < 0) return false;
    from = at + parts[i]!.chars.length;
  }
  return from <= end && fitsAt(last, text, end, steps);
}

/** The part's characters compared in place at `at` (`?` matching any). */
function fitsAt(part: Part, text: readonly string[], at: number, steps?: GlobSteps): boolean {
  for (let i = 0; i < part.chars.length; i++) {
    if (steps) steps.count++;
    const char = part.chars[i];
    if (char !== '?' && char !== text[at + i]) return false;
  }
  return true;
}

/**
 * The leftmost place ≥ `from` where the part fits and ends by `limit`, or -1. Each piece keeps its own
 * forward-only search; the candidate start only grows (to the latest place a piece allows), so every piece
 * reads each character of the text at most once (and falls back at most as often).
 */
function leftmost(part: Part, text: readonly string[], from: number, limit: number, steps?: GlobSteps): number {
  const length = part.chars.length;
  if (part.pieces.length === 0) return from + length <= limit ? from : -1;
  const searches = part.pieces.map((piece) => new PieceSearch(piece, text, steps));
  let start = from;
  for (;;) {
    if (start + length > limit) return -1;
    let agreed = true;
    for (const search of searches) {
      const found = search.nextAt(start + search.piece.offset);
      if (found < 0) return -1;
      const candidate = found - search.piece.offset;
      if (candidate > start) {
        start = candidate;
        agreed = false;
        break;
      }
    }
    if (agreed) return start;
  }
}

/** Knuth–Morris–Pratt for one piece, answering "first occurrence at or after x" for growing x. */
class PieceSearch {
  private read = 0; // next text index to read
  private matched = 0; // piece characters matched before `read`
  private found = -1; // start of the last occurrence found

  constructor(
    readonly piece: Piece,
    private readonly text: readonly string[],
    private readonly steps: GlobSteps | undefined,
  ) {}

  nextAt(x: number): number {
    if (this.found >= x) return this.found;
    const chars = this.piece.chars;
    if (this.read < x) {
      this.read = x;
      this.matched = 0;
    }
    const text = this.text;
    while (this.read < text.length) {
      const char = text[this.read++];
      while (this.matched > 0 && char !== chars[this.matched]) {
        if (this.steps) this.steps.count++;
        this.matched = this.piece.fallback[this.matched - 1]!;
      }
      if (this.steps) this.steps.count++;
      if (char === chars[this.matched]) this.matched++;
      if (this.matched === chars.length) {
        const start = this.read - chars.length;
        this.matched = this.piece.fallback[this.matched - 1]!;
        if (start >= x) return (this.found = start);
      }
    }
    return -1;
  }
}

/** For each prefix of the piece, the length of its longest proper prefix that is also its suffix. */
function failureTable(chars: readonly string[]): Uint32Array {
  const table = new Uint32Array(chars.length);
  let length = 0;
  for (let i = 1; i < chars.length; i++) {
    while (length > 0 && chars[i] !== chars[length]) length = table[length - 1]!;
    if (chars[i] === chars[length]) length++;
    table[i] = length;
  }
  return table;
}
