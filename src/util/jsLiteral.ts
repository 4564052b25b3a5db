/**
 * The one encoder for recorded text that goes into JavaScript or JSON Probe writes (mock modules, nock and undici
 * snapshot files, HAR, copy as fetch): a value becomes a literal through JSON.stringify, which quotes and escapes
 * every string, and then characters JSON.stringify leaves raw that a reader or an older parser would act on are
 * written as `\uXXXX` (the same character to any JSON or JavaScript parser):
 *
 * - U+2028 and U+2029: line breaks inside a string literal before ES2019, and line breaks to editors;
 * - DEL and C1 controls (`\u009b` is a one-character CSI to a terminal showing the file);
 * - bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
 *   U+2066–U+2069) and U+FEFF, which make code read differently from what runs (Trojan Source, CVE-2021-42574).
 *
 * Recorded text never goes into a comment: comments in generated code hold Probe's own words only.
 */
const UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

function escapeUnsafe(json: string): string {
  return json.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` as a JavaScript string literal: double quotes, every quote, backslash and control escaped. */
export function jsString(text: string): string {
  return escapeUnsafe(JSON.stringify(String(text)));
}

/** A JSON value as a JavaScript expression (an object, array, string, number…), with nothing in it that runs. */
export function jsLiteral(value: unknown): string {
  return escapeUnsafe(JSON.stringify(value) ?? 'undefined');
}

/** A JSON file's text (indented when asked), the same value to JSON.parse, safe to open in an editor or embed in code. */
export function jsonText(value: unknown, indent?: number): string {
  return escapeUnsafe(JSON.stringify(value, null, indent));
}
