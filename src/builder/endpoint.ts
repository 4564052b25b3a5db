const NUMBER = /^\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_ID = /^[0-9a-f]{16,}$/i;
const USERINFO = /^(\s*[a-z][a-z0-9+.-]*:\/\/)[^/]*@/i;

/**
 * `<scheme>://<host>/<path>` without the query, ids in the path folded to `{id}` so calls group; a row's
 * endpoint is its method and this. A URL that does not parse keeps its text up to the query or fragment,
 * without any userinfo.
 */
export function endpointTarget(url: URL | null, rawUrl: string): string {
  if (!url) return rawUrl.split(/[?#]/)[0]!.replace(USERINFO, '$1');
  const path = url.pathname
    .split('/')
    .map((segment) => (segment && (NUMBER.test(segment) || UUID.test(segment) || HEX_ID.test(segment)) ? '{id}' : segment))
    .join('/');
  return `${url.protocol}//${url.host}${path}`;
}

export function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}
