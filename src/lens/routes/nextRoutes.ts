import path from 'node:path';
import { patchMethod } from '../../util/patches';
import type { OpenLate } from '../LateRequests';

/**
 * Next.js keeps the route it matched on the request, under a global symbol
 * (https://github.com/vercel/next.js/blob/canary/packages/next/src/server/request-meta.ts `NEXT_REQUEST_META`):
 * `match.definition` names the app's file (`page`) and the URL template (`pathname`) for app router pages and
 * route handlers (server actions post to their page) and pages-router pages and API routes, in `next dev`,
 * `next start` and custom servers alike. The same object hangs on node:http's request and on Next's wrapper of it.
 */
const NEXT_REQUEST_META = Symbol.for('NextInternalRequestMeta');

interface RouteDefinition {
  kind?: unknown;
  page?: unknown;
  pathname?: unknown;
}
interface NextRequestLike {
  [NEXT_REQUEST_META]?: { match?: { definition?: RouteDefinition } };
  /** node:http's request inside Next's NodeNextRequest (https://github.com/vercel/next.js/blob/canary/packages/next/src/server/base-http/node.ts). */
  _req?: object;
}
/** node:http's response inside Next's NodeNextResponse (same file). */
interface NextResponseLike {
  _res?: object;
}

/** Next's own pages, matched when the app's routes are not: a 404 or an error has no route of the app's. */
const NEXT_OWN = new Set(['/_not-found', '/_error', '/_global-error', '/404', '/500', '/_app', '/_document']);

/**
 * The template as the app names it: for the app router the folder path of its `page` or `route` file, route
 * groups and slots kept (`/(shop)/cart`, as the app's tree shows it; Next's own `next.route` drops them); for the
 * pages router the page's URL template (`/api/legacy/[id]`). Null for Next's own pages and unknown kinds.
 */
export function nextRouteTemplate(definition: RouteDefinition | undefined): string | null {
  if (!definition || typeof definition.page !== 'string') return null;
  let route: string;
  if (definition.kind === 'APP_PAGE' || definition.kind === 'APP_ROUTE') {
    route = definition.page.replace(/\/(page|route)$/, '') || '/';
  } else if (definition.kind === 'PAGES' || definition.kind === 'PAGES_API') {
    route = typeof definition.pathname === 'string' ? definition.pathname : definition.page;
  } else return null;
  return NEXT_OWN.has(route) ? null : route;
}

/** The route Next matched for a request, read when the request ends (Next settles it while the request runs). */
export function readNextRoute(request: NextRequestLike): string | null {
  return nextRouteTemplate(request[NEXT_REQUEST_META]?.match?.definition);
}

type HandleRequest = (this: unknown, req: NextRequestLike, ...rest: unknown[]) => unknown;

/**
 * Every request a Next.js server answers (`next dev`, `next start`, a custom server's `getRequestHandler()`)
 * passes through `BaseServer.prototype.handleRequest`
 * (https://github.com/vercel/next.js/blob/canary/packages/next/src/server/base-server.ts `handleRequest`), which
 * Next offers no hook or channel for: it is wrapped to hand Probe a reader of the matched route. The dev server
 * overrides it and calls `super.handleRequest`, which reads the patched prototype. `handleRequestImpl`, which
 * `handleRequest` calls once Next's `prepare()` (where instrumentation.ts's register() runs) is done, is wrapped
 * too: a request node:http emitted before Probe started is opened there (see LateRequests). Returns the undo.
 */
export function patchNextBaseServer(
  exports: { default?: { prototype?: Record<string, unknown> } },
  noteRoute: (request: object | undefined, route: () => unknown) => void,
  openLate: OpenLate,
): (() => void) | null {
  const proto = exports?.default?.prototype;
  if (!proto || patched.has(proto)) return null;
  const note = (req: NextRequestLike) => {
    try {
      if (req && typeof req === 'object') noteRoute(req._req ?? undefined, () => readNextRoute(req));
    } catch {
      // the request goes on unrecorded
    }
  };
  const undo = patchMethod(
    proto,
    'handleRequest',
    'next/dist/server/base-server.js Server.prototype.handleRequest',
    'reaches each request Next.js answers, whose request meta holds the matched route; Next has no hook for it (https://github.com/vercel/next.js/blob/canary/packages/next/src/server/base-server.ts handleRequest)',
    (original) =>
      function handleRequest(this: unknown, req: NextRequestLike) {
        note(req);
        return (original as HandleRequest).apply(this, arguments as unknown as Parameters<HandleRequest>);
      } as never,
  );
  if (!undo) return null;
  const undoImpl = patchMethod(
    proto,
    'handleRequestImpl',
    'next/dist/server/base-server.js Server.prototype.handleRequestImpl',
    "reaches a request that was waiting in handleRequest for Next's prepare(), where instrumentation.ts's register() starts Probe: node:http emitted it before Probe was there to open its unit; Next has no hook for it (https://github.com/vercel/next.js/blob/canary/packages/next/src/server/base-server.ts handleRequest)",
    (original) =>
      function handleRequestImpl(this: unknown, req: NextRequestLike, res: NextResponseLike) {
        const args = arguments as unknown as Parameters<HandleRequest>;
        return openLate(req?._req, res?._res, () => {
          note(req);
          return (original as HandleRequest).apply(this, args);
        });
      } as never,
  );
  patched.add(proto);
  return () => {
    patched.delete(proto);
    undoImpl?.();
    undo();
  };
}

/** Prototypes wrapped now: the require hook and the cache lookup (patchLoadedNextServer) may both see the module. */
const patched = new WeakSet<object>();

/**
 * `start()` called from the app's `instrumentation.ts` runs after Next.js loaded its server, where a require hook
 * comes too late: the loaded module is patched from require's cache instead (once; the hook skips it then).
 */
export function patchLoadedNextServer(noteRoute: (request: object | undefined, route: () => unknown) => void, openLate: OpenLate): (() => void) | null {
  const suffix = ['', 'node_modules', 'next', 'dist', 'server', 'base-server.js'].join(path.sep);
  for (const [file, module] of Object.entries(require.cache)) {
    if (!file.endsWith(suffix) || !module?.loaded) continue;
    const undo = patchNextBaseServer(module.exports as Parameters<typeof patchNextBaseServer>[0], noteRoute, openLate);
    if (undo) return undo;
  }
  return null;
}
