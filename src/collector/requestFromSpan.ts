import type { IncomingRequestInput } from '../builder/input';
import type { OtlpSpan } from './model';
import { headers, num, str } from './attributeReaders';

/** A SERVER span → the incoming request it served (stable HTTP conventions, old names as fallback). */
export function requestFromSpan(span: OtlpSpan): IncomingRequestInput & { path: string } {
  const a = span.attributes;
  const method = (str(a, 'http.request.method_original', 'http.request.method', 'http.method') ?? 'GET').toUpperCase();
  const full = str(a, 'url.full', 'http.url');
  let path: string;
  let url: string;
  if (full) {
    url = full;
    path = pathOf(full);
  } else {
    const query = str(a, 'url.query')?.replace(/^\?/, '');
    const target = str(a, 'http.target') ?? `${str(a, 'url.path') ?? '/'}${query ? `?${query}` : ''}`;
    const scheme = str(a, 'url.scheme', 'http.scheme') ?? 'http';
    const host = str(a, 'http.host') ?? hostOf(str(a, 'server.address', 'net.host.name'), num(a, 'server.port', 'net.host.port'), scheme);
    url = `${scheme}://${host}${target.startsWith('/') ? target : `/${target}`}`;
    path = pathOf(url);
  }
  const status = num(a, 'http.response.status_code', 'http.status_code');
  return {
    method,
    url,
    path,
    route: str(a, 'http.route'),
    status: status === null ? null : Math.trunc(status),
    headers: headers(a, 'http.request.header.'),
    ...traceparentOf(span.parentIsRemote === false ? null : span.parentSpanId, span.traceId),
    remoteAddress: str(a, 'client.address', 'network.peer.address', 'http.client_ip', 'net.peer.ip'),
  };
}

function hostOf(address: string | null, port: number | null, scheme: string): string {
  const host = address ?? 'localhost';
  return port === null || port === (scheme === 'https' ? 443 : 80) ? host : `${host}:${port}`;
}

function pathOf(url: string): string {
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return url.split('?')[0] ?? '/';
  }
}

/**
 * The `traceparent` an SDK's propagation carries, rebuilt from the span: the trace id and the span it names as its
 * parent (a server span's remote caller; for a client span, itself). Kept apart from the headers (it may not have
 * been sent): the one key that links spans of a service in another language to the calls around it (docs/flows.md).
 */
export function traceparentOf(parentId: string | null, traceId: string): { traceparent?: string } {
  if (!parentId || !/^[\da-f]{32}$/.test(traceId) || !/^[\da-f]{16}$/.test(parentId)) return {};
  return { traceparent: `00-${traceId}-${parentId}-01` };
}
