import type { Logger } from '../../util/logger';

type Done = (error?: Error) => void;
interface FastifyRequestLike {
  raw?: object;
  routeOptions?: { url?: unknown };
  routerPath?: unknown;
}
interface FastifyLike {
  addHook?: (name: string, hook: (request: FastifyRequestLike, reply: unknown, done: Done) => void) => unknown;
}

/**
 * Fastify 4 and 5 publish each new instance on the `fastify.initialization` diagnostics channel
 * (https://github.com/fastify/fastify/blob/main/fastify.js, `initChannel.publish({ fastify })`), before the
 * app registers anything. Probe adds one `onRequest` hook there, which reads the matched route's URL
 * (`request.routeOptions.url`; `routerPath` before Fastify 4.10): so a request a later hook rejects (401)
 * still has its route. Channels reach ESM apps as they reach CommonJS ones.
 */
export function onFastifyInit(message: unknown, noteRoute: (request: object | undefined, route: string) => void, logger: Logger): void {
  const fastify = (message as { fastify?: FastifyLike } | undefined)?.fastify;
  if (typeof fastify?.addHook !== 'function') return;
  try {
    fastify.addHook('onRequest', function probeRoute(request, _reply, done) {
      try {
        // routerPath only where routeOptions is missing: Fastify 4.10+ warns on each read of it.
        const options = request.routeOptions;
        const url = options ? options.url : request.routerPath;
        if (typeof url === 'string' && url) noteRoute(request.raw, url);
      } catch {
        // the request goes on unrecorded
      }
      done();
    });
  } catch (error) {
    logger.warnOnce('fastify-route', 'could not read Fastify routes', error);
  }
}
