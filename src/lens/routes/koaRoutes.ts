import { patchMethod } from '../../util/patches';

type CreateContext = (this: unknown, req: object, res: object) => { _matchedRoute?: unknown };

/**
 * Koa keeps the context out of reach of node:http's request, and @koa/router (and koa-router) put the matched
 * template on it as `ctx._matchedRoute`, router prefixes included
 * (https://github.com/koajs/router/blob/master/src/router.ts `_matchedRoute`). Koa has no hook or channel
 * for a new context, so `createContext` (https://github.com/koajs/koa/blob/master/lib/application.js) is
 * wrapped to hand Probe a reader of it, read when the request ends. Returns the undo.
 */
export function patchKoaContext(
  Application: { prototype?: Record<string, unknown> },
  noteRoute: (request: object, route: () => unknown) => void,
): (() => void) | null {
  const proto = Application?.prototype;
  if (!proto) return null;
  return patchMethod(
    proto,
    'createContext',
    'koa Application.prototype.createContext',
    'reaches the request context, where @koa/router leaves the matched route template (ctx._matchedRoute); Koa has no hook for a new context (https://github.com/koajs/koa/blob/master/lib/application.js createContext)',
    (original) =>
      function createContext(this: unknown, req: object) {
        const ctx = (original as CreateContext).apply(this, arguments as unknown as Parameters<CreateContext>);
        try {
          noteRoute(req, () => ctx?._matchedRoute);
        } catch {
          // the request goes on unrecorded
        }
        return ctx;
      } as never,
  );
}
