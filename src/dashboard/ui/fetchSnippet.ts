import type { HttpRow } from '../../capture/types';
import { requestBodyOf } from './curl';
import { jsString } from '../../util/jsLiteral';

export { jsString };

// fetch() refuses to set these (forbidden request headers) or computes them itself.
const SKIPPED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

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
