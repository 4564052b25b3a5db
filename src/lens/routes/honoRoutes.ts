import { patchMethod } from '../../util/patches';

type ContextClass = new (request: unknown, options?: { env?: { incoming?: object } }) => { req?: { routePath?: unknown } };

/**
 * Hono builds one `Context` per request (https://github.com/honojs/hono/blob/main/src/hono-base.ts, `#dispatch`)
 * and reports the template of the handler that answered as `c.req.routePath`, `app.route()` prefixes included.
 * It has no hook or channel for a new context, and `fetch` is a per-instance function: the CommonJS module's
 * `Context` export, read at each request, becomes a subclass that hands Probe a reader of the route, read
 * when the request ends. @hono/node-server passes node:http's request as `env.incoming`. Returns the undo.
 */
export function patchHonoContext(exports: { Context?: unknown }, noteRoute: (request: object | undefined, route: () => unknown) => void): (() => void) | null {
  return patchMethod(
    exports as Record<string, unknown>,
    'Context',
    'hono/dist/cjs/context.js Context',
    'sees each request context, whose req.routePath is the matched route template; Hono has no hook for a new context (https://github.com/honojs/hono/blob/main/src/hono-base.ts #dispatch)',
    (Original) => {
      const Base = Original as ContextClass;
      return class Context extends Base {
        constructor(request: unknown, options?: { env?: { incoming?: object } }) {
          super(request, options);
          try {
            noteRoute(options?.env?.incoming, () => this.req?.routePath);
          } catch {
            // the request goes on unrecorded
          }
        }
      };
    },
  );
}
