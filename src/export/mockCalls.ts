import type { Capture, HttpRow } from '../capture/types';

/**
 * The recorded calls as a mock library needs them (method, URL, status, headers, body), shared by the
 * MSW, nock and undici snapshot exports. Values Probe masked stay masked. A call whose response cannot be
 * replayed as it was is left out, with the reason, so no mock answers with a body the app never got.
 */

export interface MockCall {
  capture_id: string;
  row: number;
  method: string;
  /** The URL as recorded (masked query values stay masked). */
  url: string;
  status: number;
  /** Response headers a mock can send again (sizes and encodings dropped: the body is replayed decoded). */
  headers: Array<[string, string]>;
  /** The response body as text ('' when it was empty or is binary), and its JSON value when it is JSON. */
  body: string;
  json?: unknown;
  /** A binary body's bytes as base64 (`body` is then ''): each format writes them in its own binary form. */
  base64?: string;
  /** The request's content type, for mocks that match on it (undici's snapshots). */
  request_type: string | null;
}

export interface LeftOut {
  capture_id: string;
  row: number;
  method: string;
  url: string;
  reason: string;
}

export interface MockCalls {
  calls: MockCall[];
  left_out: LeftOut[];
}

/** RFC 9110 section 5.6.2: a method is a token. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Hop-by-hop and framing headers: the mock library frames the body itself, decoded. */
const DROPPED_HEADERS = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive']);

export interface RowOf {
  capture: Capture;
  row: HttpRow;
  index: number;
}

/** Calls in the order given (captures oldest first, rows in order, so repeated calls replay in sequence). */
export function mockCallsOf(rows: readonly RowOf[]): MockCalls {
  const out: MockCalls = { calls: [], left_out: [] };
  for (const { capture, row, index } of rows) {
    const where = { capture_id: capture.id, row: index, method: String(row.method), url: String(row.url) };
    // One row a store holds in a shape no mock can take (a method that is no text, a status that is no number)
    // is left out with the reason: it never costs the calls beside it their export.
    try {
      const made = mockCallOf(row, where);
      if ('reason' in made) out.left_out.push(made);
      else out.calls.push(made);
    } catch (error) {
      out.left_out.push({ ...where, reason: `unreadable row (${(error as Error).message})` });
    }
  }
  return out;
}

function mockCallOf(row: HttpRow, where: Omit<LeftOut, 'reason'>): MockCall | LeftOut {
  if (typeof row.method !== 'string' || !HTTP_TOKEN.test(row.method)) return { ...where, reason: 'the recorded method is not an HTTP method' };
  const kept = replayableBody(row);
  if ('reason' in kept) return { ...where, reason: kept.reason };
  if (!Number.isInteger(row.status)) return { ...where, reason: 'the recorded status is not a number' };
  const body = 'text' in kept ? kept.text : '';
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(row.response_headers ?? {})) {
    if (DROPPED_HEADERS.has(name.toLowerCase())) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.push([name.toLowerCase(), String(one)]);
  }
  const call: MockCall = { ...where, status: row.status!, headers, body, request_type: headerOf(row.request_headers, 'content-type') };
  if ('base64' in kept) call.base64 = kept.base64;
  if (body !== '' && /[/+]json\b/i.test(headerOf(row.response_headers, 'content-type') ?? '')) {
    try {
      call.json = JSON.parse(body);
    } catch {
      // not JSON after all: replayed as text
    }
  }
  return call;
}

/** The body to replay (text, or a binary body's base64), or why there is none. */
function replayableBody(row: HttpRow): { text: string } | { base64: string } | { reason: string } {
  // A span sent to `probe collect` may carry any text as its URL (`-o./x`): no mock can match it.
  if (typeof row.url !== 'string' || !URL.canParse(row.url)) return { reason: 'the recorded URL is not a URL' };
  if (row.status === null) return { reason: `no response (${row.exception?.message ?? 'the call failed'})` };
  if (row.truncated) return { reason: 'body cut at max_body_bytes' };
  if (typeof row.response_body_base64 === 'string') return { base64: row.response_body_base64 };
  const text = row.response_capture?.raw ?? row.response_body;
  if (typeof text === 'string') {
    // Stored as text by a Probe that kept no binary bodies: bytes that were not UTF-8 are gone.
    if (text.includes('\uFFFD')) return { reason: 'binary body kept as text only (recorded by an older Probe)' };
    return { text };
  }
  if (row.response_bytes === 0 || row.method === 'HEAD' || row.status === 204 || row.status === 304) return { text: '' };
  return { reason: 'body not kept (the bodies option keeps bodies no response capture shows)' };
}

function headerOf(headers: Record<string, unknown> | undefined, name: string): string | null {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
  }
  return null;
}
