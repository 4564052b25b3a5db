import type { ExpressTemplates } from './ExpressTemplates';
import { patchMethod } from '../../util/patches';

/** Where Probe keeps the path a layer was mounted with (`router.use(path, ...)`): Express 4's Layer keeps only a regexp. */
const MOUNT_PATH = Symbol('probe.express.mountPath');

type RouterLike = { stack?: object[] } & Record<string, unknown>;
type LayerLike = { route?: { path?: unknown; stack?: unknown[] }; [MOUNT_PATH]?: unknown };
type Handle = (this: LayerLike, req: { baseUrl?: unknown }, res: unknown, next: unknown) => unknown;

/**
 * Records the mount path on the layers `use` adds. Express 4's router
 * (https://github.com/expressjs/express/blob/4.x/lib/router/index.js, `proto.use`) and router < 2.3
 * (https://github.com/pillarjs/router/blob/v2.2.0/index.js, `Router.prototype.use`) do not keep the path a
 * layer was made from, only its regexp, and a nested route's template needs it. Returns the undo.
 */
export function patchRouterUse(proto: RouterLike, target: string): (() => void) | null {
  return patchMethod(
    proto,
    'use',
    target,
    'keeps the path each layer was mounted with: the router keeps only its regexp, and a nested route template needs it (https://github.com/expressjs/express/blob/4.x/lib/router/index.js proto.use, https://github.com/pillarjs/router/blob/v2.2.0/index.js Router.prototype.use)',
    (original) =>
      function use(this: RouterLike) {
        const before = Array.isArray(this?.stack) ? this.stack.length : -1;
        const result = (original as (...args: unknown[]) => unknown).apply(this, arguments as unknown as unknown[]);
        try {
          if (before >= 0 && Array.isArray(this.stack)) {
            const first: unknown = arguments[0];
            // use(fn) mounts at '/'; use(path, fn) at path (an array or a regexp cannot be joined into one template)
            const path = typeof first === 'function' ? '/' : Array.isArray(first) && first.length === 1 ? first[0] : first;
            for (let i = before; i < this.stack.length; i++) (this.stack[i] as LayerLike)[MOUNT_PATH] = path;
          }
        } catch {
          // the router works as before without the mark
        }
        return result;
      },
  );
}

/**
 * Tells the templates when a layer starts handling a request: Express 4 and router < 2.3 have no diagnostics
 * channel (https://github.com/expressjs/express/blob/4.x/lib/router/layer.js `handle_request`,
 * https://github.com/pillarjs/router/blob/v2.2.0/lib/layer.js `handleRequest`). Returns the undo.
 */
export function patchLayerHandle(
  proto: Record<string, unknown>,
  key: 'handle_request' | 'handleRequest',
  target: string,
  templates: ExpressTemplates,
): (() => void) | null {
  return patchMethod(
    proto,
    key,
    target,
    'sees each layer start on a request (mounted router, middleware or route) to build the full route template; this router has no diagnostics channel (https://github.com/expressjs/express/blob/4.x/lib/router/layer.js handle_request, https://github.com/pillarjs/router/blob/v2.2.0/lib/layer.js handleRequest)',
    (original) =>
      function handle(this: LayerLike, req, res, next) {
        try {
          if (this.route) templates.route(req, this.route.path);
          else if (MOUNT_PATH in this) templates.mount(req, this[MOUNT_PATH]);
        } catch {
          // routing goes on unrecorded
        }
        return (original as Handle).apply(this, arguments as unknown as Parameters<Handle>);
      } as Handle,
  );
}

/** A start event of router >= 2.3's `express.router.request` tracing channel. */
export interface RouterTraceContext {
  req?: { baseUrl?: unknown; route?: LayerLike['route'] };
  layer?: unknown;
  route?: unknown;
  param?: unknown;
  errorHandler?: boolean;
}

/**
 * router >= 2.3 (Express 5) publishes each handler's start on `tracing:express.router.request:start`
 * (https://github.com/pillarjs/router#diagnostics) with the pattern of its layer: a route's handlers get the
 * route's path, middleware and mounted routers the path they were mounted with. No patch needed there.
 */
export function onRouterTraceStart(templates: ExpressTemplates, ctx: RouterTraceContext): void {
  const req = ctx?.req;
  if (!req || ctx.param !== undefined || ctx.errorHandler) return;
  const route = req.route;
  if (route && Array.isArray(route.stack) && route.stack.includes(ctx.layer)) templates.route(req, ctx.route);
  else templates.mount(req, ctx.route);
}
