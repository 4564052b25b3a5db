import type { SecretWords } from './SecretWords';
import { nameKey } from './nameKey';

/** What tests a name against a user's pattern. */
export interface NamePattern {
  test(name: string): boolean;
}

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
    /** The user's patterns: RegExps, or guards that test one off this thread under a deadline (config/guardUserParts.ts). */
    private readonly patterns: readonly NamePattern[] = [],
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
      if (pattern instanceof RegExp) pattern.lastIndex = 0;
      if (pattern.test(name)) return true;
    }
    return false;
  }
}
