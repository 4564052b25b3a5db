import type { HttpRow, Timing } from '../../capture/types';

/** The measured phases of a call, in the order they happen, with the names the waterfall and timeline show. */
export const PHASES: Array<{ key: keyof Timing; label: string; about: string }> = [
  { key: 'redirect', label: 'Redirects', about: 'time spent on earlier hops of a redirect chain' },
  { key: 'dns', label: 'DNS', about: 'looking up the host name' },
  { key: 'connect', label: 'Connect', about: 'opening the TCP connection' },
  { key: 'tls', label: 'TLS', about: 'the TLS handshake' },
  { key: 'wait', label: 'Waiting', about: 'from the request sent to the first byte of the answer' },
  { key: 'download', label: 'Download', about: 'reading the answer body' },
];

/**
 * The part of a call's duration in no measured phase: waiting for a free connection in the client's pool,
 * sending the request body, and the client's own work before and after the socket.
 */
export const UNMEASURED = { label: 'Queued / other', about: 'not in a measured phase: waiting for a free connection, sending the body, the client’s own work' };

/** How a call ended, told apart at a glance: answered, answered with an HTTP error, or no answer at all. */
export type CallKind = 'ok' | 'redirect' | 'client-error' | 'server-error' | 'no-response';

export const KIND_LABELS: Record<CallKind, string> = {
  ok: '2xx answered',
  redirect: '3xx redirect',
  'client-error': '4xx client error',
  'server-error': '5xx server error',
  'no-response': 'no response (network failure)',
};

export function callKind(row: Pick<HttpRow, 'status'>): CallKind {
  if (row.status === null) return 'no-response';
  if (row.status >= 500) return 'server-error';
  if (row.status >= 400) return 'client-error';
  if (row.status >= 300) return 'redirect';
  return 'ok';
}

/** Error codes of a connection that was never opened. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNABORTED']);
/** Error codes and messages of a connection the other side closed or reset after it was open. */
const CLOSED_AFTER = /other side closed|socket hang up|ECONNRESET|EPIPE|UND_ERR_SOCKET|terminated/i;

/** The sentence for a call with no network timing, by why it has none. */
export function noTimingReason(row: HttpRow): string {
  if (row.fake) return 'Answered by a fake: no network timing.';
  if (row.cache) return "Answered from the client's cache: no request went out.";
  if (row.status !== null) return 'No timing recorded.';
  const codes = [row.exception?.code, ...(row.exception?.previous ?? []).map((link) => link.code)].filter((code): code is string => !!code);
  const messages = [row.exception?.message ?? '', ...(row.exception?.previous ?? []).map((link) => link.message)].join(' ');
  const notConnected = codes.find((code) => NOT_CONNECTED.has(code));
  if (notConnected) return `No timing: the connection could not be opened (${notConnected}).`;
  if (codes.some((code) => code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'))
    return 'No timing: the call timed out before an answer came.';
  if (codes.includes('ABORT_ERR') || /aborted|AbortError/i.test(messages)) return 'No timing: the call was aborted before an answer came.';
  if (CLOSED_AFTER.test(messages) || codes.some((code) => CLOSED_AFTER.test(code)))
    return 'No timing: the connection was open, then the server closed it before answering.';
  return 'No timing: no answer came.';
}
