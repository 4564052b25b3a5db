/**
 * Builds Express's full route template (`/api/users/:id`) from what its router reports one level at a time:
 * a mounted router or middleware gives the path it was mounted with (`/api/users`), a route its own path
 * (`/:id`), and `req.baseUrl` the concrete prefix matched so far (`/api/users`). The template of each prefix
 * is kept per request, keyed by that concrete prefix: the router restores `req.baseUrl` as it leaves a mounted
 * router, so the entry for the current `baseUrl` is always the last one entered there.
 */
export class ExpressTemplates {
  /** Per request: concrete `baseUrl` → its template (null when a mount path was not a plain string). */
  private readonly prefixes = new WeakMap<object, Map<string, string | null>>();

  /**
   * `onRouted`: told of each request Express's router starts on (its first layer), so that a request Express
   * answers without a route (a middleware, a 404) keeps none rather than another rule's reconstruction.
   */
  constructor(
    private readonly onRoute: (request: object, route: string) => void,
    private readonly onRouted: (request: object) => void = () => {},
  ) {}

  /** A mounted router or middleware starts, after the router has set `req.baseUrl` for it. */
  mount(request: { baseUrl?: unknown }, pattern: unknown): void {
    const base = typeof request.baseUrl === 'string' ? request.baseUrl : '';
    let known = this.prefixes.get(request);
    if (!known) this.prefixes.set(request, (known = this.first(request)));
    const own = mountPart(pattern);
    if (own === null) {
      known.set(base, null);
      return;
    }
    if (own === '') {
      if (!known.has(base)) known.set(base, null);
      return;
    }
    const parent = known.get(dropSegments(base, own.split('/').length - 1));
    known.set(base, typeof parent === 'string' ? parent + own : null);
  }

  /** A route's handlers start: its path joined to the template of the prefix it was mounted under. */
  route(request: { baseUrl?: unknown }, path: unknown): void {
    if (typeof path !== 'string') return;
    const base = typeof request.baseUrl === 'string' ? request.baseUrl : '';
    if (!this.prefixes.has(request)) this.prefixes.set(request, this.first(request));
    const prefix = base === '' ? '' : this.prefixes.get(request)?.get(base);
    if (typeof prefix !== 'string' || (prefix === '' && isCatchAll(path))) return;
    this.onRoute(request, joinTemplate(prefix, path));
  }

  /** A request's first layer: its table of prefixes starts with the app's own, and the request is Express's. */
  private first(request: object): Map<string, string | null> {
    this.onRouted(request);
    return new Map([['', '']]);
  }
}

/**
 * A route at the top that matches every path (`*`, `/*`, `/{*splat}`, `/*splat`, `(.*)`) names nothing: it is how a server
 * hands every request to another router (React Router's `react-router-serve`, a proxy), whose route, if it
 * reports one, is the request's; a 404 it answers has none.
 */
function isCatchAll(path: string): boolean {
  return /^\/?(\*\w*|\{\*\w*\}|\(\.\*\))$/.test(path);
}

/** A mount path as a template prefix: `''` for `/`, no trailing slash; null where segments cannot be counted. */
function mountPart(pattern: unknown): string | null {
  if (pattern === undefined || pattern === '/') return '';
  if (typeof pattern !== 'string' || /[*?(){}]/.test(pattern)) return null;
  const trimmed = pattern.replace(/\/+$/, '');
  return trimmed.startsWith('/') || trimmed === '' ? trimmed : `/${trimmed}`;
}

function dropSegments(base: string, count: number): string {
  return base
    .split('/')
    .slice(0, -count || undefined)
    .join('/');
}

/** `/api/users` + `/:id`; a route at `/` under a prefix is the prefix itself. */
export function joinTemplate(prefix: string, path: string): string {
  if (prefix === '') return path || '/';
  return path === '/' || path === '' ? prefix : prefix + (path.startsWith('/') ? path : `/${path}`);
}
