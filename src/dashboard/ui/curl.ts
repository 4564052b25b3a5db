import type { HttpRow } from '../../capture/types';

/** POSIX shell single-quoting: the text comes out exactly as recorded. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// curl computes these itself; copying them would only make the command wrong when the body is edited.
const SKIPPED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

function bodyOf(row: HttpRow): string | null {
  if (row.request_body !== null) return row.request_body;
  if (row.request_payload === null) return null;
  const type = (row.request_headers['content-type'] ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded') && !Array.isArray(row.request_payload)) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(row.request_payload)) params.append(key, typeof value === 'string' ? value : JSON.stringify(value));
    return params.toString();
  }
  return JSON.stringify(row.request_payload);
}

/**
 * The call as a curl command, from the row as recorded: masked headers and fields stay masked
 * (`********`), so a copied command never leaks what the capture did not keep.
 */
export function curlOf(row: HttpRow): string {
  const parts = ['curl'];
  if (row.method !== 'GET' || (row.request_bytes > 0 && bodyOf(row) === null)) parts.push('-X', row.method);
  parts.push(shellQuote(row.url));
  for (const [name, value] of Object.entries(row.request_headers)) {
    if (SKIPPED_HEADERS.has(name.toLowerCase())) continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  const body = bodyOf(row);
  if (body !== null) parts.push('--data-raw', shellQuote(body));
  if ((row.timing?.redirects ?? 0) > 0) parts.push('-L');
  return parts.join(' ');
}
