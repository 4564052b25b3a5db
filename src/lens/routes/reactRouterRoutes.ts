import path from 'node:path';
import { patchMethod } from '../../util/patches';

/** A route of a React Router build's manifest (`build.routes`): flat, each naming its parent. */
interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
}

interface Build {
  routes?: Record<string, ManifestRoute>;
  basename?: string;
}

/** A route as React Router's `matchRoutes` takes it. */
interface RouteObject {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children?: RouteObject[];
}

type MatchRoutes = (routes: RouteObject[], location: string, basename?: string) => Array<{ route: RouteObject }> | null;
type CreateRequestHandler = (this: unknown, build: unknown, mode?: unknown) => unknown;
type RequestHandler = (this: unknown, request: { url?: unknown }, ...rest: unknown[]) => unknown;

/** Each build's manifest as the tree `matchRoutes` walks, made once. */
const trees = new WeakMap<object, RouteObject[]>();

/**
 * React Router in framework mode (`react-router-serve`, `@react-router/express`, `@react-router/node`) answers
 * every request through one server catch-all (Express's `*`), so the server's route says nothing. The route a
 * request matched is React Router's own: `createRequestHandler(build)` is wrapped to hand Probe a reader that runs
 * React Router's `matchRoutes` over the build's route manifest, read when the request ends: the matched routes'
 * paths joined (`/api/users/:id`), as React Router's own instrumentation reports its pattern; no match (a 404) is
 * no route. React Router has no diagnostics channel for a matched route
 * (https://github.com/remix-run/react-router/blob/main/packages/react-router/lib/server-runtime/server.ts).
 */
export function patchReactRouter(
  exports: { createRequestHandler?: unknown; matchRoutes?: unknown },
  noteRoute: (request: object | undefined, route: () => unknown) => void,
): (() => void) | null {
  const matchRoutes = exports.matchRoutes as MatchRoutes | undefined;
  // A namespace `require(esm)` returned (no loader hook saw it) cannot change: `@react-router/express` is wrapped instead.
  if (typeof matchRoutes !== 'function' || !Object.isExtensible(exports)) return null;
  return patchMethod(
    exports as { createRequestHandler: CreateRequestHandler },
    'createRequestHandler',
    'react-router createRequestHandler',
    "reads the route React Router matched from the build's route manifest with its own matchRoutes; React Router publishes no matched route (https://github.com/remix-run/react-router/blob/main/packages/react-router/lib/server-runtime/server.ts createRequestHandler)",
    (original) =>
      function createRequestHandler(this: unknown, build: unknown, mode?: unknown) {
        // A dev server passes a function that loads the build per request: the latest one it loaded is read.
        let loaded: Build | undefined = typeof build === 'function' ? undefined : (build as Build);
        const given =
          typeof build === 'function'
            ? async function loadBuild(this: unknown) {
                const value = (await (build as (this: unknown, ...args: unknown[]) => Promise<Build>).apply(this, arguments as never)) as Build;
                loaded = value;
                return value;
              }
            : build;
        const handler = original.call(this, given, mode) as RequestHandler;
        if (typeof handler !== 'function') return handler;
        return function requestHandler(this: unknown, request: { url?: unknown }) {
          try {
            const url = request?.url;
            if (typeof url === 'string') noteRoute(undefined, () => (loaded ? routeOf(loaded, new URL(url).pathname, matchRoutes) : null));
          } catch {
            // the request goes on unnamed
          }
          return handler.apply(this, arguments as never);
        };
      },
  );
}

type ExpressHandler = (this: unknown, req: { originalUrl?: unknown; url?: unknown }, ...rest: unknown[]) => unknown;
type CreateExpressHandler = (this: unknown, options: { build?: unknown }) => unknown;

/**
 * `@react-router/express` as a CommonJS `require` gets it on Node versions that load its ES module build for
 * `require` (its `module-sync` export condition): that build's own `import` of React Router is then loaded by
 * `require(esm)`, which the ESM loader hooks never see, so `react-router-serve` reaches an unwrapped
 * `createRequestHandler`. The namespace `require` returns cannot be changed: the requirer gets a copy whose
 * `createRequestHandler` reads the route the same way, from the build it is given (a build loaded per request,
 * in development, is left to React Router's own wrap above).
 */
export function wrapReactRouterExpress(
  exports: Record<string, unknown>,
  noteRoute: (request: object | undefined, route: () => unknown) => void,
  stopped: () => boolean,
): Record<string, unknown> | null {
  const original = exports.createRequestHandler as CreateExpressHandler | undefined;
  const matcher = reactRouterMatcher();
  if (typeof original !== 'function' || !matcher) return null;
  const matchRoutes: MatchRoutes = matcher;
  function createRequestHandler(this: unknown, options: { build?: unknown }) {
    const handler = original!.apply(this, arguments as never) as ExpressHandler;
    const build = options?.build;
    if (typeof handler !== 'function' || !build || typeof build !== 'object') return handler;
    return function requestHandler(this: unknown, req: { originalUrl?: unknown; url?: unknown }) {
      try {
        const url = typeof req?.originalUrl === 'string' ? req.originalUrl : req?.url;
        if (!stopped() && typeof url === 'string') noteRoute(req, () => routeOf(build as Build, new URL(url, 'http://x').pathname, matchRoutes));
      } catch {
        // the request goes on unnamed
      }
      return handler.apply(this, arguments as never);
    };
  }
  return { ...exports, createRequestHandler };
}

/** React Router's `matchRoutes`, as the app's entry or its folder resolves React Router. */
function reactRouterMatcher(): MatchRoutes | null {
  const from = [process.cwd()];
  if (process.argv[1]) from.unshift(path.dirname(path.resolve(process.argv[1])));
  try {
    const { matchRoutes } = require(require.resolve('react-router', { paths: from })) as { matchRoutes?: unknown };
    return typeof matchRoutes === 'function' ? (matchRoutes as MatchRoutes) : null;
  } catch {
    return null;
  }
}

/** The matched routes' paths joined, or null when no route matches. */
function routeOf(build: Build, pathname: string, matchRoutes: MatchRoutes): string | null {
  const tree = treeOf(build);
  if (!tree) return null;
  const matches = matchRoutes(tree, documentPath(pathname), build.basename);
  if (!matches?.length) return null;
  const joined = matches
    .map((match) => match.route.path)
    .filter(Boolean)
    .join('/')
    .replace(/\/\/+/g, '/');
  return joined.startsWith('/') ? joined : `/${joined}`;
}

/**
 * The page a data request is for: React Router's single fetch asks for `/users/42.data` (`/_root.data` for
 * `/`) to load the data of `/users/42`.
 */
function documentPath(pathname: string): string {
  if (pathname === '/_root.data') return '/';
  return pathname.endsWith('.data') ? pathname.slice(0, -'.data'.length) : pathname;
}

function treeOf(build: Build): RouteObject[] | null {
  const routes = build.routes;
  if (!routes || typeof routes !== 'object') return null;
  let tree = trees.get(routes);
  if (tree) return tree;
  const children = new Map<string | undefined, RouteObject[]>();
  for (const route of Object.values(routes)) {
    const list = children.get(route.parentId) ?? [];
    list.push({ id: route.id, path: route.path, index: route.index, caseSensitive: route.caseSensitive });
    children.set(route.parentId, list);
  }
  const attach = (list: RouteObject[]): RouteObject[] => {
    for (const route of list) {
      const own = children.get(route.id);
      if (own) route.children = attach(own);
    }
    return list;
  };
  tree = attach(children.get(undefined) ?? []);
  trees.set(routes, tree);
  return tree;
}
