import type { SecretWords } from './SecretWords';

/**
 * Which field, query and form names hold secrets, decided once per distinct name.
 *
 * A plain name matches whole names in any case and any of snake_case, camelCase or kebab-case: `api_key`
 * matches `apiKey`, `API-KEY` and `Api_Key`, never `api_keys` or `my_api_key`; `token` never matches
 * `prompt_tokens`. A form or query name in brackets (`card[number]`, `user[password]`) matches by its whole
 * path (`card_number`) or by its last part (`password`). A RegExp is the user's own: it is tested against
 * the name as given, unchanged. The built-in word rule (SecretWords: `newPassword`, `x-session-token`), when
 * given, is asked after the whole names.
 */
export class SecretNames {
  private readonly names: ReadonlySet<string>;
  private readonly known = new Map<string, boolean>();

  constructor(
    names: readonly string[],
    private readonly patterns: readonly RegExp[] = [],
    private readonly words: SecretWords | null = null,
  ) {
    this.names = new Set(names.map(nameKey));
  }

  has(name: string): boolean {
    let secret = this.known.get(name);
    if (secret === undefined) {
      secret = this.decide(name);
      // Names are few (field names of the app's APIs); a flood of distinct ones is not remembered.
      if (this.known.size < 10_000) this.known.set(name, secret);
    }
    return secret;
  }

  private decide(name: string): boolean {
    if (this.names.has(nameKey(name))) return true;
    const open = name.lastIndexOf('[');
    if (open > 0 && name.endsWith(']') && this.names.has(nameKey(name.slice(open + 1, -1)))) return true;
    if (this.words?.has(name)) return true;
    for (const pattern of this.patterns) {
      pattern.lastIndex = 0;
      if (pattern.test(name)) return true;
    }
    return false;
  }
}

/**
 * The words of a name, lower-case, joined by `_`: `apiKey`, `API-KEY`, `Api_Key` and `api key` give
 * `api_key`; `APIKey` gives `api_key`, `X-Amz-Signature` `x_amz_signature`. Any ASCII character that is
 * not a letter or digit separates words, as does a lower-case letter or digit followed by an upper-case
 * one, or the last capital of a run followed by a lower-case letter.
 */
export function nameKey(name: string): string {
  let out = '';
  let split = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const upper = c >= 65 && c <= 90;
    if (c < 128 && !upper && !isLowerOrDigit(c)) {
      split = out.length > 0;
      continue;
    }
    if (upper && out.length > 0 && !split) {
      const prev = name.charCodeAt(i - 1);
      if (isLowerOrDigit(prev) || (prev >= 65 && prev <= 90 && isLower(name.charCodeAt(i + 1)))) split = true;
    }
    if (split) {
      out += '_';
      split = false;
    }
    out += upper ? String.fromCharCode(c + 32) : c < 128 ? name[i] : name[i]!.toLowerCase();
  }
  return out;
}

function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}

function isLowerOrDigit(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}
