// The credential scan's loop as it was when issue 28's second pass began (session h-scan): one regular expression
// of literals, a Telegram candidate at every digit before a colon. Kept with the JSON pre-scan of that time
// (test/helpers/jsonPrescanBefore.ts) as what the faster scans must agree with, and what bench/prescan.mjs
// measures them against. Not used by Probe.
import { Scan, type ScanStats } from '../../src/mask/credentialValues';

/** True when the scan of that time found a credential in `text`. */
export function holdsCredential(text: string, stats?: ScanStats): boolean {
  return scanCredentials(text, stats, true) !== null;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The credentials in `text`, left to right (only the first when `firstOnly`), or null when there is none. A
 * candidate at `i` is tried when `i` is a boundary and at or past the end of the last hit: the literal's start
 * for every format but Telegram's, whose token starts 6 to 12 digits before the `:` (each digit there that is
 * a boundary is a candidate, in order, as the character scan tried them).
 */
function scanCredentials(text: string, stats: ScanStats | undefined, firstOnly: boolean): Hit[] | null {
  const literals = CANDIDATES;
  literals.lastIndex = 0;
  let found = literals.exec(text);
  if (stats) stats.steps += text.length;
  // Most texts (header values, a body's strings) hold no literal: nothing more is allocated for them.
  if (found === null) return null;
  const scan = new Scan(text);
  let hits: Hit[] | null = null;
  let from = 0; // candidates before this lie inside the last hit
  for (; found !== null; found = literals.exec(text)) {
    const at = found.index;
    const c = text.charCodeAt(at);
    let hit: Hit | null = null;
    let candidate = at;
    if (isDigit(c)) {
      // The digit before the colon: the token's digits start 6 to 12 before the colon, in one run of digits.
      let start = at;
      while (start > 0 && at - start < 11 && isDigit(text.charCodeAt(start - 1))) start--;
      scan.steps += at - start;
      for (let i = Math.max(start, from); i <= at - 5 && !hit; i++) {
        hit = scan.boundaryAt(i) ? scan.matchAt(i, text.charCodeAt(i)) : null;
        candidate = i;
      }
    } else if (at >= from && scan.boundaryAt(at)) {
      hit = scan.matchAt(at, c);
    }
    if (hit) {
      (hits ??= []).push(hit);
      if (firstOnly) break;
      // As the character scan went on: at the hit's end, or one past the candidate.
      from = Math.max(hit.next, candidate + 1);
      literals.lastIndex = Math.max(from, at + 1);
    } else {
      // Literals may overlap (`sk-----BEGIN`): the next search starts one character on.
      literals.lastIndex = at + 1;
    }
  }
  if (stats) stats.steps += scan.steps;
  return hits;
}

/**
 * Literals one of which every format starts with (the digit before a Telegram token's colon for that format):
 * the text between two of them holds no candidate. Literals only, each at most 15 characters long: no
 * backtracking beyond that at any position.
 */
const CANDIDATES = /eyJ|gh[pousr]_|github_pat_|xox[abposr]-|xapp-|hooks\.slack\.com|[sr]k[-_]|whsec_|AKIA|ASIA|AIza|-----BEGIN|[0-9](?::|%3[Aa])/g;

/** What to replace: [from, to) becomes MASKED; the scan goes on at `next`. */
interface Hit {
  from: number;
  to: number;
  next: number;
}
