import type { HttpRow } from '../../capture/types';
import { shellWord } from '../../util/shellWord';

export { shellWord as shellQuote };

/** RFC 9110 section 5.6.2: a method is a token, one or more tchar. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What is copied in place of a command when the recorded method is not an HTTP token (a span sent to
 * `probe collect` can say anything): a shell comment, which does nothing when pasted.
 */
export const REFUSED_CURL = '# no curl command: the recorded method is not an HTTP method (RFC 9110 token)';

// curl computes these itself; copying them would only make the command wrong when the body is edited.
const SKIPPED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

/** The request body as sent, rebuilt from what was recorded (text, or the parsed JSON / form fields); null when none was kept. */
export function requestBodyOf(row: HttpRow): string | null {
  if (typeof row.request_body === 'string') return row.request_body;
  if (row.request_payload === null || typeof row.request_payload !== 'object') return null;
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
 * (`********`), so a copied command never leaks what the capture did not keep. Every recorded part is one
 * shell word of its own (`shellWord`); a method of letters only is a word as it stands (`-X POST`).
 */
export function curlOf(row: HttpRow): string {
  if (typeof row.method !== 'string' || !HTTP_TOKEN.test(row.method)) return REFUSED_CURL;
  const parts = ['curl'];
  const body = requestBodyOf(row);
  if (row.method !== 'GET' || (row.request_bytes > 0 && body === null)) parts.push('-X', /^[A-Za-z]+$/.test(row.method) ? row.method : shellWord(row.method));
  parts.push(shellWord(String(row.url)));
  for (const [name, value] of Object.entries(row.request_headers ?? {})) {
    if (SKIPPED_HEADERS.has(name.toLowerCase())) continue;
    parts.push('-H', shellWord(`${name}: ${String(value)}`));
  }
  if (body !== null) parts.push('--data-raw', shellWord(body));
  if ((row.timing?.redirects ?? 0) > 0) parts.push('-L');
  return parts.join(' ');
}
