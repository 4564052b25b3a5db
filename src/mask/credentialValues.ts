import { MASKED } from './FullMask';

/** Counts what a scan read, for the test that proves it linear (steps, not the clock). */
export interface ScanStats {
  steps: number;
}

/**
 * Masks values in well-known credential formats wherever they sit in a text, whatever name they are under:
 *
 * | format | what is masked |
 * |---|---|
 * | JWT / JWE | `eyJ` + 10 or more base64url characters, then 2 to 4 more dot-separated parts |
 * | GitHub | `ghp_` `gho_` `ghu_` `ghs_` `ghr_` + 30 or more letters and digits; `github_pat_` + 40 or more |
 * | Slack | `xoxa-` `xoxb-` `xoxp-` `xoxo-` `xoxs-` `xoxr-` `xapp-` + 10 or more with a digit; `hooks.slack.com/services/…` |
 * | Stripe | `sk_live_` `sk_test_` `rk_live_` `rk_test_` + 16 or more; `whsec_` + 16 or more |
 * | AWS access key id | `AKIA` / `ASIA` + exactly 16 upper-case letters and digits |
 * | Google API key | `AIza` + exactly 35 base64url characters |
 * | OpenAI, Anthropic | `sk-` (`sk-proj-`, `sk-ant-`…) + 20 or more base64url characters with a digit |
 * | Telegram bot token | 6 to 12 digits, `:`, exactly 35 base64url characters (`/bot<token>/` in paths too) |
 * | PEM private key | what lies between `-----BEGIN … PRIVATE KEY-----` and `-----END` (or the text's end) |
 *
 * A token must start the text or follow a character that is not a letter, digit, `_` or `-` (or a `%XX`
 * escape, or a `\n`-style escape in JSON text), so `task-…` is no `sk-…`. The literal prefix stays
 * (`ghp_********`): it says what kind of credential was sent and is no part of the secret.
 *
 * One pass, left to right: a regular expression of literals (one of which every format starts with, or for a
 * Telegram token ends its digits with) finds where a token may start, and only there are the characters read.
 * A candidate reads only its own characters; past a run of token characters no candidate can start inside it
 * (no boundary there), and a JWT's parts are read by at most five candidates: linear in the text. The
 * candidates are those the character-by-character scan this replaced tried and could match (tested side by
 * side in test/mask/credential-scan.test.ts), in the same order, so the masked text is the same.
 */
export function maskCredentials(text: string, stats?: ScanStats): string {
  const hits = scanCredentials(text, stats, false);
  if (hits === null) return text;
  let out = '';
  let copied = 0;
  for (const hit of hits) {
    out += text.slice(copied, hit.from) + MASKED;
    copied = hit.to;
  }
  return out + text.slice(copied);
}

/**
 * True when maskCredentials would mask something in `text`: the same scan, stopped at the first credential
 * (the fast path of bodies with nothing to mask asks this, and keeps the text when the answer is no).
 */
export function holdsCredential(text: string, stats?: ScanStats): boolean {
  return scanCredentials(text, stats, true) !== null;
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
 * backtracking beyond that at any position. A digit before a colon is one only when the five characters
 * before it are digits too (the lookbehind, at most 9 characters read back, only where a digit and a colon
 * met): with fewer, no token's 6 to 12 digits can end there, and the scan would try no candidate (so a time
 * such as `16:00:01` in every record of a page is not returned to it, each return being a call).
 */
const CANDIDATES =
  /eyJ|gh[pousr]_|github_pat_|xox[abposr]-|xapp-|hooks\.slack\.com|[sr]k[-_]|whsec_|AKIA|ASIA|AIza|-----BEGIN|[0-9](?::|%3[Aa])(?<=[0-9]{6}(?::|%3[Aa]))/g;

/** What to replace: [from, to) becomes MASKED; the scan goes on at `next`. */
interface Hit {
  from: number;
  to: number;
  next: number;
}

/** Character classes, one bit each, of the ASCII characters. */
const ALNUM = 1;
const UPPER_DIGIT = 2;
const B64URL = 4; // letters, digits, _ and -
const B64 = 8; // letters, digits, + / =
const ALNUM_DASH = 16;
const DIGIT = 32;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const digit = c >= 48 && c <= 57;
  const upper = c >= 65 && c <= 90;
  const lower = c >= 97 && c <= 122;
  if (digit || upper || lower) CLASS[c]! |= ALNUM | B64URL | B64 | ALNUM_DASH;
  if (digit || upper) CLASS[c]! |= UPPER_DIGIT;
  if (digit) CLASS[c]! |= DIGIT;
  if (c === 0x5f || c === 0x2d) CLASS[c]! |= B64URL;
  if (c === 0x2d) CLASS[c]! |= ALNUM_DASH;
  if (c === 0x2b || c === 0x2f || c === 0x3d) CLASS[c]! |= B64;
}

function inClass(c: number, cls: number): boolean {
  return c < 128 && (CLASS[c]! & cls) !== 0;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Exported for test/helpers/credentialScanReference.ts: the previous, slower loop over the same matchers, which the scan must agree with. */
export class Scan {
  steps = 0;
  constructor(private readonly text: string) {}

  /**
   * The start of the text, or after a character that cannot be part of a token, a `%XX` escape or a `\n`
   * escape; a Telegram token may also follow `bot` there (`/bot123456:AA…`).
   */
  boundaryAt(i: number): boolean {
    const t = this.text;
    if (isDigit(t.charCodeAt(i)) && i >= 3 && t.startsWith('bot', i - 3) && this.startsToken(i - 3)) return true;
    return this.startsToken(i);
  }

  private startsToken(i: number): boolean {
    if (i === 0) return true;
    const t = this.text;
    const prev = t.charCodeAt(i - 1);
    if (!inClass(prev, B64URL)) return true;
    if (i >= 3 && t.charCodeAt(i - 3) === 0x25 && isHex(t.charCodeAt(i - 2)) && isHex(prev)) return true;
    return i >= 2 && t.charCodeAt(i - 2) === 0x5c && (prev === 0x6e || prev === 0x72 || prev === 0x74);
  }

  /** The end of the run of `cls` characters from `from`, read at most `max` characters far. */
  private run(from: number, cls: number, max = Infinity): number {
    const t = this.text;
    let k = from;
    const stop = Math.min(t.length, from + max);
    while (k < stop && inClass(t.charCodeAt(k), cls)) k++;
    this.steps += k - from;
    return k;
  }

  private has(at: number, literal: string): boolean {
    this.steps += literal.length;
    return this.text.startsWith(literal, at);
  }

  /** A run of `cls` of at least `min` characters after the literal prefix at `i`; the prefix is kept. */
  private prefixed(i: number, prefix: string, cls: number, min: number, needsDigit = false): Hit | null {
    if (!this.has(i, prefix)) return null;
    const from = i + prefix.length;
    const end = this.run(from, cls);
    if (end - from < min) return null;
    if (needsDigit && !this.hasDigit(from, end)) return null;
    return { from, to: end, next: end };
  }

  private hasDigit(from: number, to: number): boolean {
    for (let k = from; k < to; k++) if (isDigit(this.text.charCodeAt(k))) return true;
    return false;
  }

  matchAt(i: number, c: number): Hit | null {
    switch (c) {
      case 0x65: // e
        return this.jwt(i);
      case 0x67: // g
        return this.text.charCodeAt(i + 1) === 0x68 && this.text.charCodeAt(i + 3) === 0x5f && 'pousr'.includes(this.text[i + 2] ?? '.')
          ? this.prefixed(i, this.text.slice(i, i + 4), ALNUM, 30)
          : this.prefixed(i, 'github_pat_', B64URL, 40);
      case 0x78: // x
        return (
          ('abposr'.includes(this.text[i + 3] ?? '.') ? this.prefixed(i, `xox${this.text[i + 3]}-`, ALNUM_DASH, 10, true) : null) ??
          this.prefixed(i, 'xapp-', ALNUM_DASH, 10, true)
        );
      case 0x68: // h
        return this.slackHook(i);
      case 0x73: // s
        return this.prefixed(i, 'sk_live_', ALNUM, 16) ?? this.prefixed(i, 'sk_test_', ALNUM, 16) ?? this.openAi(i);
      case 0x72: // r
        return this.prefixed(i, 'rk_live_', ALNUM, 16) ?? this.prefixed(i, 'rk_test_', ALNUM, 16);
      case 0x77: // w
        return this.prefixed(i, 'whsec_', B64, 16);
      case 0x41: // A
        return this.fixed(i, 'AKIA', UPPER_DIGIT, 16, ALNUM) ?? this.fixed(i, 'ASIA', UPPER_DIGIT, 16, ALNUM) ?? this.fixed(i, 'AIza', B64URL, 35, B64URL);
      case 0x2d: // -
        return this.pem(i);
      default:
        return this.telegram(i);
    }
  }

  /** The prefix and exactly `length` characters of `cls`, not followed by another character of `after`. */
  private fixed(i: number, prefix: string, cls: number, length: number, after: number): Hit | null {
    if (!this.has(i, prefix)) return null;
    const from = i + prefix.length;
    const end = this.run(from, cls, length);
    if (end - from !== length || inClass(this.text.charCodeAt(end), after)) return null;
    return { from, to: end, next: end };
  }

  /** `eyJ` + 10 or more, then 2 to 4 more parts after dots (JWS has three parts, JWE five; some may be empty). */
  private jwt(i: number): Hit | null {
    if (!this.has(i, 'eyJ')) return null;
    const t = this.text;
    let end = this.run(i + 3, B64URL);
    if (end - i < 13) return null;
    let parts = 1;
    let rest = 0;
    while (parts < 5 && t.charCodeAt(end) === 0x2e) {
      const next = this.run(end + 1, B64URL);
      rest += next - end - 1;
      end = next;
      parts++;
    }
    if (parts < 3 || rest < 3) return null;
    return { from: i + 3, to: end, next: end };
  }

  /** `sk-` keys (OpenAI's `sk-proj-…`, Anthropic's `sk-ant-…`): a lower-case kind word stays readable. */
  private openAi(i: number): Hit | null {
    const hit = this.prefixed(i, 'sk-', B64URL, 20, true);
    if (!hit) return null;
    const t = this.text;
    let k = hit.from;
    while (k < hit.from + 8 && t.charCodeAt(k) >= 97 && t.charCodeAt(k) <= 122) k++;
    if (k > hit.from && t.charCodeAt(k) === 0x2d && hit.to - k > 20) hit.from = k + 1;
    return hit;
  }

  /** `hooks.slack.com/services/T…/B…/…` (also `/workflows/`, `/triggers/`, and `%2F` for slashes). */
  private slackHook(i: number): Hit | null {
    if (!this.has(i, 'hooks.slack.com')) return null;
    let k = i + 15;
    const slash = this.slash(k);
    if (!slash) return null;
    k += slash;
    const kind = ['services', 'workflows', 'triggers'].find((word) => this.has(k, word));
    if (!kind) return null;
    k += kind.length;
    const second = this.slash(k);
    if (!second) return null;
    const from = k + second;
    let end = from;
    for (;;) {
      end = this.run(end, ALNUM);
      const next = this.slash(end);
      if (!next || !inClass(this.text.charCodeAt(end + next), ALNUM)) break;
      end += next;
    }
    return end - from >= 20 ? { from, to: end, next: end } : null;
  }

  private slash(at: number): number {
    const t = this.text;
    if (t.charCodeAt(at) === 0x2f) return 1;
    return t.charCodeAt(at) === 0x25 && t.charCodeAt(at + 1) === 0x32 && (t.charCodeAt(at + 2) | 0x20) === 0x66 ? 3 : 0;
  }

  /** `-----BEGIN … PRIVATE KEY-----` (RSA, EC, OPENSSH, ENCRYPTED, PGP … BLOCK): its body up to `-----END`. */
  private pem(i: number): Hit | null {
    if (!this.has(i, '-----BEGIN')) return null;
    const t = this.text;
    const labelStart = i + 10;
    let k = labelStart;
    // Labels are short: read at most 64 characters for one (spaces may be written `+` or `%20` in a URL).
    while (k < t.length && k - labelStart < 64 && t.charCodeAt(k) !== 0x2d) k++;
    this.steps += k - labelStart;
    const label = t.slice(labelStart, k).replace(/%20|\+/g, ' ');
    if (!this.has(k, '-----') || !/^ [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?$/.test(label)) return null;
    const from = k + 5;
    const endMark = t.indexOf('-----END', from);
    const to = endMark < 0 ? t.length : endMark;
    this.steps += to - from;
    return { from, to, next: to };
  }

  /** A Telegram bot token: `123456789:` + 35 characters; in paths it follows `bot` (`/bot123…:AA…/sendMessage`). */
  private telegram(i: number): Hit | null {
    const t = this.text;
    if (!isDigit(t.charCodeAt(i))) return null;
    const digits = this.run(i, DIGIT, 13);
    if (digits - i < 6 || digits - i > 12) return null;
    // The colon, or `%3A` in a query value.
    const colon =
      t.charCodeAt(digits) === 0x3a
        ? 1
        : t.charCodeAt(digits) === 0x25 && t.charCodeAt(digits + 1) === 0x33 && (t.charCodeAt(digits + 2) | 0x20) === 0x61
          ? 3
          : 0;
    if (!colon) return null;
    const from = digits + colon;
    const end = this.run(from, B64URL, 36);
    if (end - from !== 35) return null;
    return { from, to: end, next: end };
  }
}
