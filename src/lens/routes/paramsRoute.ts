/** More parameters than this on one request is no router's match of one path: no route. */
const MAX_PARAMS = 32;

/** A parameter name as routers write it after `:` (`:id`, `:user_id`); `*`, `0` (a regex group) are wildcards. */
const NAME = /^[A-Za-z_$][\w$-]*$/;

/**
 * The route of a request no framework-specific reader named, from what the framework's router left on the request
 * object node:http handed it: the parameters it matched (`req.params`, as Express-style routers set it: polka,
 * tinyhttp, restify, …) and the path the request asked for. Each path segment equal to one parameter's value
 * becomes `:name`; the rest of the path is the route's own text. Only an unambiguous answer is given, else none:
 * - a value that is empty, not a string, found in no segment (a parameter inside a segment, `/:name.:ext`; a query
 *   value mapped into the parameters) or in two (`/pairs/7/7`; `/users/users`) gives none;
 * - a wildcard (`*`, a regex group's number, a value spanning segments) gives none;
 * - without parameters the path is the route only when the framework says the route it matched is that path
 *   (`req.route.path`, as restify, Express and tinyhttp set it): a request a middleware answered (static files)
 *   has none;
 * - a 404 gives none: an answer of the router's fallback and of a route that found nothing look the same here.
 * Reads own data properties only (never a getter the framework defines) and writes nothing. Linear in the path.
 * `target` is the request's target as node:http parsed it, before any framework rewrote `req.url`.
 */
export function routeFromParams(request: object, target: string | undefined, status: number | null): string | null {
  if (status === 404 || typeof target !== 'string' || !target.startsWith('/')) return null;
  const path = pathOf(target);
  const params = ownValue(request, 'params');
  if (!params || typeof params !== 'object' || Array.isArray(params)) return null;
  const names = Object.keys(params);
  if (names.length === 0) {
    const route = ownValue(request, 'route');
    return route && typeof route === 'object' && ownValue(route, 'path') === path ? path : null;
  }
  if (names.length > MAX_PARAMS) return null;
  const segments = path.split('/');
  const found = segmentIndex(segments);
  const taken = new Set<number>();
  for (const name of names) {
    const value = ownValue(params, name);
    if (!NAME.test(name) || typeof value !== 'string' || value === '') return null;
    const at = found.get(value);
    if (at === undefined || at === AMBIGUOUS || taken.has(at)) return null;
    taken.add(at);
    segments[at] = `:${name}`;
  }
  return segments.join('/');
}

const AMBIGUOUS = -1;

/** Each segment's text (as sent and percent-decoded) → its index, or AMBIGUOUS when two segments share it. */
function segmentIndex(segments: string[]): Map<string, number> {
  const found = new Map<string, number>();
  const add = (text: string, at: number) => {
    const before = found.get(text);
    found.set(text, before === undefined || before === at ? at : AMBIGUOUS);
  };
  for (let at = 1; at < segments.length; at++) {
    const segment = segments[at]!;
    if (!segment) continue;
    add(segment, at);
    const decoded = decode(segment);
    if (decoded !== null && decoded !== segment) add(decoded, at);
  }
  return found;
}

function pathOf(target: string): string {
  const end = target.search(/[?#]/);
  return end >= 0 ? target.slice(0, end) : target;
}

function decode(segment: string): string | null {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null; // malformed escapes: the segment as sent only
  }
}

/** An own data property's value, never calling an accessor. */
function ownValue(target: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor && 'value' in descriptor ? descriptor.value : undefined;
}
