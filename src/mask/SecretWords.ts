import { nameKey } from './nameKey';

/** The word lists of the built-in rule (src/config/defaults.ts holds Probe's own). */
export interface SecretWordLists {
  /** Last words (one, two or three, joined by `_`) that make a name secret: `password`, `api_key`. */
  readonly endings: readonly string[];
  /** Last words that keep a name readable though a shorter ending is secret: `page_token`, `next_token`. */
  readonly readable: readonly string[];
  /** Trailing words read past before the endings: `password_confirmation`, `password_hash`. */
  readonly trailing: readonly string[];
}

/**
 * The built-in word rule: a name is secret when its words end with a secret word or pair of words
 * (`newPassword`, `x-session-token`, `awsSecretAccessKey`), unless a longer readable ending says otherwise
 * (`nextPageToken`). Words come from nameKey (snake_case, camelCase, kebab-case, dots) split again where
 * letters meet digits; trailing numbers and qualifiers (`password2`, `password_confirmation`) are read past.
 * A name is read once, left to right, and looked up in sets: linear in its length, nothing else.
 */
export class SecretWords {
  private readonly endings: ReadonlySet<string>;
  private readonly readable: ReadonlySet<string>;
  private readonly trailing: ReadonlySet<string>;

  constructor(lists: SecretWordLists) {
    this.endings = new Set(lists.endings.map(nameKey));
    this.readable = new Set(lists.readable.map(nameKey));
    this.trailing = new Set(lists.trailing.map(nameKey));
  }

  has(name: string): boolean {
    const words = nameWords(name);
    let end = words.length;
    // Keep at least one word: `2` or `confirmation` alone is not a secret.
    while (end > 1 && (isNumber(words[end - 1]!) || this.trailing.has(words[end - 1]!))) end--;
    // The longest ending decides: `page_token` (readable) outranks `token` (secret).
    for (let size = Math.min(3, end); size >= 1; size--) {
      const tail = words.slice(end - size, end).join('_');
      if (this.readable.has(tail)) return false;
      if (this.endings.has(tail)) return true;
    }
    return false;
  }
}

/** nameKey's words, split again where a letter meets a digit: `oauth2Token` → `oauth`, `2`, `token`. */
export function nameWords(name: string): string[] {
  const out: string[] = [];
  for (const word of nameKey(name).split('_')) {
    if (!word) continue;
    let start = 0;
    for (let i = 1; i < word.length; i++) {
      if (isDigit(word.charCodeAt(i)) !== isDigit(word.charCodeAt(i - 1))) {
        out.push(word.slice(start, i));
        start = i;
      }
    }
    out.push(word.slice(start));
  }
  return out;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isNumber(word: string): boolean {
  return isDigit(word.charCodeAt(0));
}
