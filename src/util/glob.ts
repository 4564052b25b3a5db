/**
 * Glob matching in bounded time: `*` matches any run of characters (newlines too), `?` one character,
 * everything else itself; the whole text must match. A RegExp built from a glob backtracks: `*a*a*a*b`
 * against `GET /` and 3,000 `a`s takes longer than anyone waits. This is the two-pointer walk with one
 * remembered star (Kirk Krauss, 2008): at most (text + 1) × (pattern + 1) steps, no recursion, no RegExp.
 */
export interface Glob {
  /** The pattern as given. */
  readonly source: string;
  test(text: string): boolean;
}

/** Counts the steps of a match when passed in, so tests can hold the walk to its bound without a clock. */
export interface GlobSteps {
  count: number;
}

/** A glob compiled once: the pattern split into characters, runs of `*` made one. */
export function compileGlob(source: string, options: { ignoreCase?: boolean } = {}): Glob {
  const ignoreCase = options.ignoreCase ?? false;
  const pattern = charsOf(ignoreCase ? source.toLowerCase() : source).filter((char, i, all) => char !== '*' || all[i - 1] !== '*');
  return Object.freeze({
    source,
    test: (text: string) => matchChars(pattern, charsOf(ignoreCase ? String(text).toLowerCase() : String(text))),
  });
}

/** One match, with its steps counted in `steps` when given. */
export function matchGlob(source: string, text: string, steps?: GlobSteps): boolean {
  return matchChars(charsOf(source), charsOf(text), steps);
}

/** By code point, so `?` is one character even outside the Basic Multilingual Plane. */
function charsOf(text: string): string[] {
  return Array.from(text);
}

function matchChars(pattern: readonly string[], text: readonly string[], steps?: GlobSteps): boolean {
  let p = 0;
  let t = 0;
  // The last `*` seen, and the text position it is tried from: on a mismatch the star takes one more
  // character and the walk resumes after it. Earlier stars never need revisiting: the later star can
  // absorb whatever an earlier one would have taken.
  let star = -1;
  let from = 0;
  while (t < text.length) {
    if (steps) steps.count++;
    const char = pattern[p];
    if (char === '*') {
      star = p++;
      from = t;
    } else if (char !== undefined && (char === '?' || char === text[t])) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++from;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
