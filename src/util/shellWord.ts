/**
 * One argument as a POSIX shell word, so that pasting a command built from recorded text runs exactly that
 * command: the text is the word's value whatever it holds (quotes, `$(...)`, backticks, `;`, newlines).
 *
 * Plain text goes in single quotes, where nothing is special; a `'` ends the quotes, is escaped, and reopens
 * them (`'\''`). Text holding a control character uses ANSI-C quoting (`$'...'`, bash, zsh, ksh, POSIX.1-2024
 * sh) with each one written as its UTF-8 bytes (`\x1b`, `\xc2\x9b`), so no raw ESC, CR or NUL reaches the
 * terminal or the line editor on paste, and the bytes are the same in any locale.
 */
export function shellWord(text: string): string {
  if (!NEEDS_ESCAPES.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  for (const char of text) {
    if (char === '\\' || char === "'") out += `\\${char}`;
    else if (NEEDS_ESCAPES.test(char)) out += utf8Escapes(char);
    else out += char;
  }
  return `${out}'`;
}

/**
 * C0 controls, DEL, C1 controls, and the characters that reorder or hide text when shown (bidirectional marks,
 * embeddings, overrides and isolates, line and paragraph separators, the byte order mark), which would let a
 * command read other than it runs.
 */
const NEEDS_ESCAPES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

function utf8Escapes(char: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(char)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
  return out;
}
