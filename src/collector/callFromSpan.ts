import type { BodyInput, CallInput, ErrorInput, TimingInput } from '../builder/input';
import type { Origin } from '../capture/types';
import type { OtlpSpan } from './model';
import { traceparentOf } from './requestFromSpan';
import { StatusCode } from './model';
import { bool, headers, num, str, strings } from './attributeReaders';
import { PROBE_ATTRIBUTES as P, TIMING_PHASES } from '../capture/attributes';

/**
 * Is this span an outgoing HTTP call? A CLIENT span carrying an HTTP method or URL under the stable HTTP
 * conventions or the older ones (instrumentation-http still writes those by default).
 */
export function isHttpClientSpan(span: OtlpSpan): boolean {
  if (span.kind !== 3) return false;
  const a = span.attributes;
  return str(a, 'http.request.method', 'http.method', 'url.full', 'http.url') !== null;
}

/** One client span → the builder's call input (stable semconv first, old names as fallback, `probe.*` extras). */
export function callFromSpan(span: OtlpSpan, parentSpanId: string | null): CallInput {
  const a = span.attributes;
  const status = num(a, 'http.response.status_code', 'http.status_code');
  const fake = bool(a, P.fake) === true;
  const error = status === null ? errorOf(span) : null;
  return {
    spanId: span.spanId,
    parentSpanId,
    method: methodOf(span),
    url: str(a, P.url) ?? urlOf(span),
    requestHeaders: headers(a, 'http.request.header.'),
    ...traceparentOf(span.spanId, span.traceId),
    requestBody: bodyOf(
      str(a, P.requestBody),
      num(a, 'http.request.body.size', 'http.request_content_length_uncompressed', 'http.request_content_length', 'http.request.header.content-length'),
    ),
    status: status === null ? null : Math.trunc(status),
    responseHeaders: headers(a, 'http.response.header.'),
    responseBody:
      status === null
        ? null
        : bodyOf(
            str(a, P.responseBody),
            num(
              a,
              'http.response.body.size',
              'http.response_content_length_uncompressed',
              'http.response_content_length',
              'http.response.header.content-length',
            ),
          ),
    // fetch (undici) hands the app decoded bytes; node:http hands it the wire bytes.
    clientDecodes: span.scope.name.includes('undici') || span.scope.name.includes('fetch'),
    start: span.start,
    end: span.end,
    timing: fake || (status === null && error !== null) ? null : timingOf(span),
    error,
    pool: intOrNull(num(a, P.pool)),
    fake,
    origin: originOf(span),
  };
}

function methodOf(span: OtlpSpan): string {
  const a = span.attributes;
  const method = str(a, 'http.request.method', 'http.method');
  // `_OTHER` stands for a method outside the known set; the original is kept beside it.
  if (method === '_OTHER') return (str(a, 'http.request.method_original') ?? 'GET').toUpperCase();
  return (method ?? 'GET').toUpperCase();
}

function urlOf(span: OtlpSpan): string {
  const a = span.attributes;
  const full = str(a, 'url.full', 'http.url');
  if (full) return full;
  const scheme = str(a, 'url.scheme', 'http.scheme') ?? 'http';
  const host = str(a, 'server.address', 'net.peer.name', 'http.host') ?? 'unknown';
  const port = num(a, 'server.port', 'net.peer.port');
  const defaultPort = scheme === 'https' ? 443 : 80;
  const path = str(a, 'url.path', 'http.target') ?? '/';
  // instrumentation-undici writes `url.query` with its leading `?`, the conventions without.
  const query = str(a, 'url.query')?.replace(/^\?/, '');
  const authority = port === null || port === defaultPort || host.includes(':') ? host : `${host}:${port}`;
  return `${scheme}://${authority}${path.startsWith('/') ? path : `/${path}`}${query ? `?${query}` : ''}`;
}

function bodyOf(text: string | null, size: number | null): BodyInput | null {
  if (text !== null) {
    const bytes = Buffer.from(text, 'utf8');
    return { chunks: [bytes], size: Math.max(size ?? 0, bytes.length), truncated: size !== null && size > bytes.length };
  }
  if (size === null) return null;
  return { chunks: [], size: Math.max(0, Math.trunc(size)), truncated: false };
}

function timingOf(span: OtlpSpan): TimingInput {
  const a = span.attributes;
  const timing: TimingInput = { redirects: intOrNull(num(a, P.redirects)) ?? 0 };
  for (const phase of TIMING_PHASES) {
    const ms = num(a, P.timingPrefix + phase);
    if (ms !== null && ms >= 0) timing[phase] = ms;
  }
  const address = str(a, 'network.peer.address', 'net.peer.ip');
  const port = num(a, 'network.peer.port', 'net.peer.port', 'server.port');
  if (address) timing.remote = port === null ? address : `${address.includes(':') ? `[${address}]` : address}:${port}`;
  const version = str(a, 'network.protocol.version', 'http.flavor');
  if (version) timing.protocol = version.startsWith('2') ? 'HTTP/2' : `HTTP/${version}`;
  return timing;
}

/**
 * The failure of a call that got no response: the exception event the instrumentation recorded, else
 * `error.type`, else the span status. Node's recordException writes an error's `code` (ECONNREFUSED) as
 * `exception.type`; the class then comes from the first stack line.
 */
function errorOf(span: OtlpSpan): ErrorInput | null {
  const exception = span.events.find((event) => event.name === 'exception');
  const errorType = str(span.attributes, 'error.type');
  if (!exception && !errorType && span.status.code !== StatusCode.ERROR) return null;
  const type = exception ? str(exception.attributes, 'exception.type') : null;
  const message = (exception ? str(exception.attributes, 'exception.message') : null) ?? (span.status.message || errorType || 'no response');
  const stackClass = exception
    ? /^\s*([A-Za-z_$][\w$]*(?:\s*\[[^\]]*\])?):/.exec(str(exception.attributes, 'exception.stacktrace') ?? '')?.[1]?.replace(/\s*\[.*$/, '')
    : undefined;
  const candidate = type ?? errorType;
  const looksLikeCode = candidate !== null && /^(E[A-Z0-9_]+|UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+)$/.test(candidate);
  return {
    class: (looksLikeCode ? stackClass : (candidate ?? stackClass)) ?? 'Error',
    message,
    code: looksLikeCode ? candidate : null,
    causes: [],
  };
}

function originOf(span: OtlpSpan): Origin | null {
  const a = span.attributes;
  const file = str(a, P.originFile, 'code.file.path', 'code.filepath');
  const line = num(a, P.originLine, 'code.line.number', 'code.lineno');
  if (!file || line === null) return null;
  return { file, line: Math.trunc(line), chain: (strings(a, P.originChain) ?? []).slice(0, 5) };
}

function intOrNull(n: number | null): number | null {
  return n === null ? null : Math.trunc(n);
}
