// The credential scan as it was before issue 28 cut its cost (one character at a time, a candidate at every
// trigger character on a boundary): kept as the reference the faster scan must agree with, hit for hit
// (test/mask/scan-equivalence.test.ts). Not used by Probe.
import { MASKED } from '../../src/mask/FullMask';
// The formats' matchers are Probe's own, unchanged by the faster scan: only the loop that tries them is kept here.
import { Scan } from '../../src/mask/credentialValues';

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
 * One pass, left to right, no regular expression over the text (but the prefilter, a set of literals). A
 * candidate reads only its own characters; past a run of token characters no candidate can start inside it
 * (no boundary there), and a JWT's parts are read by at most five candidates: linear in the text.
 */
export function maskCredentials(text: string, stats?: ScanStats): string {
  if (!MAY_HOLD.test(text)) return text;
  const scan = new Scan(text);
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    scan.steps++;
    const c = text.charCodeAt(i);
    const hit = TRIGGER[c] === 1 && scan.boundaryAt(i) ? scan.matchAt(i, c) : null;
    if (!hit) {
      i++;
      continue;
    }
    out += text.slice(copied, hit.from) + MASKED;
    copied = hit.to;
    i = Math.max(hit.next, i + 1);
  }
  if (stats) stats.steps += scan.steps;
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * True when maskCredentials would mask something in `text`: the same scan, stopped at the first credential
 * (the fast path of bodies with nothing to mask asks this, and keeps the text when the answer is no).
 */
export function holdsCredential(text: string, stats?: ScanStats): boolean {
  if (!MAY_HOLD.test(text)) return false;
  const scan = new Scan(text);
  let found = false;
  for (let i = 0; i < text.length && !found; i++) {
    scan.steps++;
    const c = text.charCodeAt(i);
    found = TRIGGER[c] === 1 && scan.boundaryAt(i) && scan.matchAt(i, c) !== null;
  }
  if (stats) stats.steps += scan.steps;
  return found;
}

/** Literals one of which every format holds: texts without any are returned untouched, unread by the scan. */
const MAY_HOLD = /eyJ|gh[pousr]_|github_pat_|xox[abposr]-|xapp-|hooks\.slack\.com|[sr]k[-_]|whsec_|AKIA|ASIA|AIza|-----BEGIN|[0-9](?::|%3[Aa])/;

/** Characters a credential can start with. */
const TRIGGER = new Uint8Array(128);
for (const ch of 'eghxsrwA-0123456789') TRIGGER[ch.charCodeAt(0)] = 1;
