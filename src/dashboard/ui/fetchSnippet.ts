import type { HttpRow } from '../../capture/types';
import { requestBodyOf } from './curl';

// fetch() refuses to set these (forbidden request headers) or computes them itself.
const SKIPPED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

/**
 * Characters JSON.stringify leaves raw that a pasted snippet should not carry as they are: DEL and C1
 * controls (a terminal acts on them), U+2028/U+2029 (line breaks inside a literal before ES2019 and in some
 * editors), and bidi controls that make the code read differently from what runs (Trojan Source, CVE-2021-42574).
 */
const UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** `text` as a JavaScript string literal: double quotes, every quote, backslash and control escaped. */
export function jsString(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The call as a `fetch(url, { method, headers, body })` snippet, from the row as recorded: every value is a
 * string literal (`jsString`), so recorded text never becomes code, and masked values stay masked (`********`).
 */
export function fetchOf(row: HttpRow): string {
  const lines = [`fetch(${jsString(String(row.url))}, {`, `  method: ${jsString(String(row.method))},`];
  const headers = Object.entries(row.request_headers ?? {}).filter(([name]) => !SKIPPED_HEADERS.has(name.toLowerCase()));
  if (headers.length > 0) {
    lines.push('  headers: {');
    for (const [name, value] of headers) lines.push(`    ${jsString(name)}: ${jsString(String(value))},`);
    lines.push('  },');
  }
  const body = requestBodyOf(row);
  if (body !== null) lines.push(`  body: ${jsString(body)},`);
  lines.push('});');
  return lines.join('\n');
}
