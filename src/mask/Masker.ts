import type { Mask } from './Mask';
import type { SecretNames } from './SecretNames';
import { MASKED } from './FullMask';
import { maskEventStream } from '../util/eventStream';
import { maskTextPairs } from './maskText';
import { maskCredentials, type ScanStats } from './credentialValues';
import { jsonMayNeedMasking } from './jsonPrescan';
import { maskUrlPasswords } from './urlPasswords';
import { holdsCardNumber, isCardNumberValue, maskCardNumbers } from './cardNumbers';
import { threadWork } from '../util/threadWork';
import { setOwn } from '../util/setOwn';

/**
 * Masking rules compiled once from the resolved config and applied when a capture is built. Values are
 * only ever read from recorded data, never from the app's live objects. Two rules apply everywhere: by name
 * (headers, fields, parameters) and by value (credential formats: mask/credentialValues.ts), the latter
 * over every text a row keeps: URL, header values, string values of parsed bodies, raw body text.
 */
export class Masker {
  constructor(
    /** Lower-case header name → mask. */
    readonly headerMasks: ReadonlyMap<string, Mask>,
    /** Field, query and form names whose values are masked (`mask.inputs`). */
    readonly secretNames: SecretNames,
    /** Header names masked beyond `headerMasks`: the built-in word rule (`x-session-token`, `private-token`). */
    readonly secretHeaders: SecretNames | null = null,
    /** Header names `mask.headers` sets to `false`: never masked by name. */
    readonly unmaskedHeaders: ReadonlySet<string> = new Set(),
  ) {}

  isSecretName(name: string): boolean {
    return this.secretNames.has(name);
  }

  headers(headers: Record<string, unknown> | null | undefined): Record<string, string> {
    threadWork.masked++;
    const out: Record<string, string> = {};
    if (!headers) return out;
    // for-in, not Object.entries: no pair arrays per header, per row (they showed in allocation profiles).
    for (const rawName in headers) {
      const rawValue = headers[rawName];
      if (rawValue === undefined || rawValue === null || !Object.hasOwn(headers, rawName)) continue;
      const name = rawName.toLowerCase();
      const value = Array.isArray(rawValue) ? rawValue.map(String).join(', ') : String(rawValue);
      // gRPC's binary metadata must end in `-bin` (its value is base64, where no credential format shows): the
      // rules read the name before it (`x-session-token-bin` is `x-session-token`). An entry for the whole name wins.
      const binary = name.length > BIN.length && name.endsWith(BIN);
      const unmasked = this.unmaskedHeaders.has(name) || (binary && this.unmaskedHeaders.has(name.slice(0, -BIN.length)));
      const mask = this.headerMasks.get(name) ?? (binary && !unmasked ? this.headerMasks.get(name.slice(0, -BIN.length)) : undefined);
      if (mask) setOwn(out, name, safeMask(mask, value));
      else if (!unmasked && this.secretHeaders?.has(binary ? rawName.slice(0, -BIN.length) : rawName)) setOwn(out, name, MASKED);
      // Values under other names: credential formats and secret-named pairs (`location: …?access_token=…`).
      else setOwn(out, name, this.text(value));
    }
    return out;
  }

  /**
   * Masks query (and fragment) values with secret names and any userinfo password. Input the URL parser
   * rejects is masked by its text: the userinfo, and secret-named values after `?` or `#`.
   */
  url(raw: string): string {
    threadWork.masked++;
    // Most URLs have nothing to mask by name: a scan answers without the URL parser (a few µs per URL).
    // Credential formats are looked for in the whole text: paths hold them too (`/bot<token>/`, Slack hooks).
    // A URL inside it (`?db=postgres://app:pw@db`) keeps its user, not its password.
    return maskUrlPasswords(maskCardNumbers(maskCredentials(this.mayNeedMasking(raw) ? this.maskByParser(raw) : raw)));
  }

  /** url() through the URL parser, whatever the scan would say. */
  maskByParser(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return this.maskText(raw);
    }
    let changed = false;
    if (url.password) {
      url.password = MASKED;
      changed = true;
    }
    const search = url.search ? this.maskParams(url.search.slice(1)) : null;
    if (search !== null) {
      url.search = search;
      changed = true;
    }
    // OAuth's implicit flow returns tokens in the fragment (`#access_token=…`).
    const hash = url.hash.includes('=') ? this.maskParams(url.hash.slice(1)) : null;
    if (hash !== null) {
      url.hash = hash;
      changed = true;
    }
    // Keep the app's own spelling (encoding, trailing '?') unless something had to be masked.
    return changed ? url.toString() : raw;
  }

  /** `a=1&token=x` with secret-named values masked, or null when none is secret. */
  private maskParams(text: string): string | null {
    const entries = [...new URLSearchParams(text)];
    if (!entries.some(([name]) => this.isSecretName(name))) return null;
    return new URLSearchParams(entries.map(([n, v]): [string, string] => [n, this.isSecretName(n) ? MASKED : v])).toString();
  }

  /** A URL the parser rejects (a bad port, a relative path): its userinfo and secret-named values, by text. */
  private maskText(raw: string): string {
    let out = raw.replace(USERINFO, (_all, scheme: string, user: string) => `${scheme}${user}${MASKED}@`);
    const at = out.search(/[?#]/);
    if (at < 0) return out;
    const head = out.slice(0, at + 1);
    out =
      head +
      out.slice(at + 1).replace(/[^&#?]+/g, (part) => {
        const eq = part.indexOf('=');
        if (eq < 0) return part;
        let name = part.slice(0, eq);
        try {
          name = decodeURIComponent(name.replace(/\+/g, ' '));
        } catch {
          // Malformed escapes: judge the name as written.
        }
        return this.isSecretName(name) ? `${part.slice(0, eq + 1)}${MASKED}` : part;
      });
    return out;
  }

  /**
   * False only when `raw` surely has no password and no secret-named query parameter. Anything the URL
   * parser would read differently from this scan (no `://`, a backslash, tabs or newlines it strips,
   * percent-encoded or `+` names) goes to the parser.
   */
  private mayNeedMasking(raw: string): boolean {
    const scheme = raw.indexOf('://');
    if (scheme < 0 || UNUSUAL.test(raw)) return true;
    const afterAuthority = raw.slice(scheme + 3).search(AUTHORITY_END);
    const authorityEnd = afterAuthority < 0 ? raw.length : scheme + 3 + afterAuthority;
    if (raw.lastIndexOf('@', authorityEnd) > scheme) return true;
    const firstHash = raw.indexOf('#');
    if (firstHash >= 0 && raw.includes('=', firstHash)) return true;
    const query = raw.indexOf('?');
    if (query < 0) return false;
    const hash = raw.indexOf('#', query);
    for (const part of raw.slice(query + 1, hash < 0 ? undefined : hash).split('&')) {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      if (name.includes('%') || name.includes('+') || this.isSecretName(name)) return true;
    }
    return false;
  }

  /**
   * Deep copy with the values of secret-named fields masked, and strings masked as text (credential formats,
   * secret-named pairs inside them: a GraphQL `query` with `password: "…"`, a URL with `?token=…`).
   */
  maskValue(value: unknown, depth = 0): unknown {
    return this.maskTree(value, depth, null);
  }

  /**
   * maskValue, and whether it changed anything: a secret-named field or a masked text. A JSON body it leaves
   * unchanged is kept as its own text (builder/jsonBody.ts). A `__proto__` member is copied as an own member.
   */
  maskValueChanged(value: unknown): { value: unknown; changed: boolean } {
    const seen = { changed: false };
    const masked = this.maskTree(value, 0, seen);
    return { value: masked, changed: seen.changed };
  }

  /**
   * True when masking this JSON text (parsed, or as text when it does not parse) might change it; false only
   * when it surely would not (mask/jsonPrescan.ts).
   */
  jsonMayNeedMasking(text: string, stats?: ScanStats): boolean {
    return holdsCardNumber(text, stats) || jsonMayNeedMasking(text, this.isSecret, stats);
  }

  private maskTree(value: unknown, depth: number, seen: { changed: boolean } | null): unknown {
    if (typeof value === 'string') {
      const masked = this.text(value);
      if (seen && masked !== value) seen.changed = true;
      return masked;
    }
    // A card number sent as a JSON number (`{"pan": 4242424242424242}`): masked as its digits would be in a string.
    if (typeof value === 'number' && isCardNumberValue(value)) {
      if (seen) seen.changed = true;
      return MASKED;
    }
    if (depth > 64 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.maskTree(item, depth + 1, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const secret = this.isSecretName(key) && item !== null && item !== undefined;
      if (seen && secret) seen.changed = true;
      setOwn(out, key, secret ? MASKED : this.maskTree(item, depth + 1, seen));
    }
    return out;
  }

  /**
   * Masks a JSON or form body, and the JSON data of an event stream. Text that does not parse as a whole (a
   * body cut at `max_body_bytes`, invalid JSON, JSON lines, JSON under another type, any other body) has
   * its secret-named `"name": value` and `name=value` pairs masked as text: raw text is never kept as is.
   */
  body(text: string, contentType: string | null): string {
    threadWork.masked++;
    const kind = bodyKind(contentType, text);
    if (kind === 'json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return this.text(text);
      }
      return JSON.stringify(this.maskValue(parsed));
    }
    if (kind === 'form') return this.form(text);
    // The events' JSON data parsed and masked; then the rest (data that is not JSON, a last event cut short).
    if (kind === 'event-stream') return this.text(maskEventStream(text, (value) => this.maskValue(value)));
    return this.text(text);
  }

  /**
   * Text with the values of secret-named pairs (`"name": value`, `name: value`, `name=value`: mask/maskText.ts),
   * values in credential formats (mask/credentialValues.ts), card numbers (mask/cardNumbers.ts) and URL passwords
   * (mask/urlPasswords.ts) masked.
   */
  text(raw: string): string {
    return maskUrlPasswords(maskCardNumbers(maskCredentials(maskTextPairs(raw, this.isSecret))));
  }

  private readonly isSecret = (name: string): boolean => this.isSecretName(name);

  form(text: string): string {
    const params = new URLSearchParams(text);
    return new URLSearchParams([...params.entries()].map(([n, v]): [string, string] => [n, this.isSecretName(n) ? MASKED : this.text(v)])).toString();
  }
}

/** The suffix gRPC requires of binary metadata names. */
const BIN = '-bin';
/** Characters the URL parser strips or reads as a slash: a URL holding one is left to the parser. */
const UNUSUAL = /[\\\t\n\r]/;
const AUTHORITY_END = /[/?#]/;
/** `scheme://user:password@`, as text, for URLs the parser rejects. */
const USERINFO = /^(\s*[a-z][a-z0-9+.-]*:\/\/)([^/?#@:]*:)[^/?#]*@/i;

export type BodyKind = 'json' | 'form' | 'event-stream' | 'other';

/** JSON by content type (`application/json`, `+json`), or by shape when no type was sent. */
export function bodyKind(contentType: string | null, text: string): BodyKind {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  // JSON sent as a form would be read as one odd field name, secrets and all.
  if (type === 'application/x-www-form-urlencoded') return looksLikeJson(text) ? 'json' : 'form';
  if (type === 'text/event-stream') return 'event-stream';
  if (!type && looksLikeJson(text)) return 'json';
  return 'other';
}

/** The first character past white space opens an object or array (read in place: bodies run to megabytes). */
function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '{' || c === '[') return true;
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r' && c !== '\ufeff') return false;
  }
  return false;
}

function safeMask(mask: Mask, value: string): string {
  try {
    return String(mask.mask(value));
  } catch {
    // A user's mask that throws must not leak the value it was meant to hide.
    return MASKED;
  }
}
