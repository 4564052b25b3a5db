import type { Mask } from './Mask';
import { MASKED } from './FullMask';
import { maskEventStream } from '../response/eventStream';

/**
 * Masking rules compiled once from the resolved config and applied when a capture is built. Values are
 * only ever read from recorded data, never from the app's live objects.
 */
export class Masker {
  private readonly secretNames = new Map<string, boolean>();

  constructor(
    /** Lower-case header name → mask. */
    readonly headerMasks: ReadonlyMap<string, Mask>,
    readonly inputPatterns: readonly RegExp[],
  ) {}

  isSecretName(name: string): boolean {
    let secret = this.secretNames.get(name);
    if (secret === undefined) {
      secret = this.inputPatterns.some((pattern) => {
        pattern.lastIndex = 0;
        return pattern.test(name);
      });
      if (this.secretNames.size < 10_000) this.secretNames.set(name, secret);
    }
    return secret;
  }

  headers(headers: Record<string, unknown> | null | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    if (!headers) return out;
    // for-in, not Object.entries: no pair arrays per header, per row (they showed in allocation profiles).
    for (const rawName in headers) {
      const rawValue = headers[rawName];
      if (rawValue === undefined || rawValue === null || !Object.hasOwn(headers, rawName)) continue;
      const name = rawName.toLowerCase();
      const value = Array.isArray(rawValue) ? rawValue.map(String).join(', ') : String(rawValue);
      const mask = this.headerMasks.get(name);
      out[name] = mask ? safeMask(mask, value) : value;
    }
    return out;
  }

  /** Masks query values with secret names and any userinfo password. Unparseable input is returned as is. */
  url(raw: string): string {
    // Most URLs have nothing to mask: a scan answers without the URL parser (a few µs per URL).
    return this.mayNeedMasking(raw) ? this.maskByParser(raw) : raw;
  }

  /** url() through the URL parser, whatever the scan would say. */
  maskByParser(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return raw;
    }
    let changed = false;
    if (url.password) {
      url.password = MASKED;
      changed = true;
    }
    if (url.search) {
      const params = new URLSearchParams(url.search);
      const entries = [...params.entries()];
      if (entries.some(([name]) => this.isSecretName(name))) {
        url.search = new URLSearchParams(entries.map(([n, v]): [string, string] => [n, this.isSecretName(n) ? MASKED : v])).toString();
        changed = true;
      }
    }
    // Keep the app's own spelling (encoding, trailing '?') unless something had to be masked.
    return changed ? url.toString() : raw;
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

  /** Deep copy with the values of secret-named fields masked. */
  maskValue(value: unknown, depth = 0): unknown {
    if (depth > 64 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.maskValue(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      out[key] = this.isSecretName(key) && item !== null && item !== undefined ? MASKED : this.maskValue(item, depth + 1);
    }
    return out;
  }

  /** Masks a JSON or form body, and the JSON data of an event stream; any other body is returned unchanged. */
  body(text: string, contentType: string | null): string {
    const kind = bodyKind(contentType, text);
    if (kind === 'json') {
      try {
        return JSON.stringify(this.maskValue(JSON.parse(text)));
      } catch {
        return text;
      }
    }
    if (kind === 'form') return this.form(text);
    if (kind === 'event-stream') return maskEventStream(text, (value) => this.maskValue(value));
    return text;
  }

  form(text: string): string {
    const params = new URLSearchParams(text);
    return new URLSearchParams([...params.entries()].map(([n, v]): [string, string] => [n, this.isSecretName(n) ? MASKED : v])).toString();
  }
}

/** Characters the URL parser strips or reads as a slash: a URL holding one is left to the parser. */
const UNUSUAL = /[\\\t\n\r]/;
const AUTHORITY_END = /[/?#]/;

export type BodyKind = 'json' | 'form' | 'event-stream' | 'other';

/** JSON by content type (`application/json`, `+json`), or by shape when no type was sent. */
export function bodyKind(contentType: string | null, text: string): BodyKind {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'text/event-stream') return 'event-stream';
  if (!type) {
    const first = text.trimStart()[0];
    if (first === '{' || first === '[') return 'json';
  }
  return 'other';
}

function safeMask(mask: Mask, value: string): string {
  try {
    return String(mask.mask(value));
  } catch {
    // A user's mask that throws must not leak the value it was meant to hide.
    return MASKED;
  }
}
