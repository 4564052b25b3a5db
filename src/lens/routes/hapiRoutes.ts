import { patchMethod } from '../../util/patches';

/** What Probe reads of a Hapi request: the route it matched (`request.route`, Hapi's public route info). */
interface HapiRequest {
  route?: { method?: unknown; path?: unknown } | null;
}

type Generate = (this: unknown, server: unknown, req: object, res: object, options?: { isInjected?: unknown }) => HapiRequest;

/**
 * Hapi builds one `Request` per node:http request (`Request.generate`, called by the server's listener for each
 * `request` event: https://github.com/hapijs/hapi/blob/master/lib/core.js `_dispatch`) and keeps the route it
 * matched on it as `request.route`, whose `path` is the template as the app wrote it (`/items/{id}`). Hapi has no
 * diagnostics channel, and its request is out of reach of node:http's: `generate` is wrapped to hand Probe a
 * reader of the route, read when the request ends. Before routing, and for a path no route matches, Hapi's
 * request holds its own not-found route (method `_special`, https://github.com/hapijs/hapi/blob/master/lib/core.js
 * `specials`): no route. A request made with `server.inject()` is no node:http request: left out, so it never
 * names the request the app answers while it injects. Returns the undo.
 */
export function patchHapiRequest(Request: { generate?: unknown }, noteRoute: (request: object, route: () => unknown) => void): (() => void) | null {
  if (typeof Request?.generate !== 'function') return null;
  return patchMethod(
    Request as { generate: Generate },
    'generate',
    '@hapi/hapi/lib/request.js Request.generate',
    "reaches each Hapi request, which keeps the route it matched (request.route.path); Hapi has no hook or channel for a new request outside the app's own extensions (https://github.com/hapijs/hapi/blob/master/lib/request.js generate)",
    (original) =>
      function generate(this: unknown, _server: unknown, req: object, _res: object, options?: { isInjected?: unknown }) {
        const request = original.apply(this, arguments as unknown as Parameters<Generate>);
        try {
          if (!options?.isInjected && req) noteRoute(req, () => matchedPath(request));
        } catch {
          // the request goes on unrecorded
        }
        return request;
      },
  );
}

function matchedPath(request: HapiRequest | undefined): unknown {
  const route = request?.route;
  return route && route.method !== '_special' ? route.path : null;
}
