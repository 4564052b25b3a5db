import type { TracerProvider } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import type { Recorder } from '../../runtime/Recorder';
import type { Logger } from '../../util/logger';
import { ExpressTemplates } from './ExpressTemplates';
import { onRouterTraceStart, type RouterTraceContext } from './expressRoutes';
import { onFastifyInit } from './fastifyRoutes';
import { RouteInstrumentation } from './RouteInstrumentation';
import { patchLoadedNextServer } from './nextRoutes';
import { NitroRequests } from './nitroRoutes';
import { routeFromParams } from './paramsRoute';

import type { SourceFactory, Subscribe } from '../../runtime/UnitSource';
import { lateRequests, type OpenLate } from '../LateRequests';
import { alsoHookEsm } from '../esmHook';
import type { IncomingRequests } from '../IncomingRequests';

/**
 * Sets each request's route template from the framework that routed it, without the app's own OTel
 * instrumentations: diagnostics channels where the framework has them (Fastify, router >= 2.3 under Express 5),
 * module patches through the ledger where not; any other framework's from the parameters its router left on the
 * request (paramsRoute). Returns the undo.
 */
export function watchRoutes(recorder: Recorder, provider: TracerProvider, subscribe: Subscribe, logger: Logger, openLate: OpenLate): () => void {
  let stopped = false;
  // A Fastify hook added to a live instance cannot be taken off: after shutdown it does nothing.
  const noteRoute = (request: object | undefined, route: string | (() => unknown), fallback = false) => {
    if (!stopped) recorder.noteRoute(request, route, fallback);
  };
  const templates = new ExpressTemplates(noteRoute, (request) => {
    if (!stopped) recorder.noteRouted(request);
  });
  const nitro = new NitroRequests(noteRoute);
  const undos = [
    recorder.inferRoutes(routeFromParams),
    subscribe('fastify.initialization', (message) => onFastifyInit(message, noteRoute, logger)),
    subscribe('http.server.request.start', (message) => nitro.note(message)),
    subscribe('tracing:express.router.request:start', (message) => onRouterTraceStart(templates, message as RouterTraceContext)),
    registerInstrumentations({ tracerProvider: provider, instrumentations: [new RouteInstrumentation(templates, noteRoute, logger, openLate)] }),
    // Next.js loaded already (start() from instrumentation.ts): its server is patched where it is.
    patchLoadedNextServer(noteRoute, openLate) ?? (() => {}),
  ];
  return () => {
    stopped = true;
    for (const undo of undos.reverse()) undo();
  };
}

/**
 * Route templates as a unit source: it names the request units the requests source opens, and opens those of
 * requests node:http emitted before Probe started (see LateRequests).
 */
export function routeTemplates(requests: IncomingRequests): SourceFactory {
  // Listed before any source is made (the loader takes the modules listed when the first one registers it):
  // react-router-serve, a CommonJS command, imports the app's build and React Router as ES modules.
  alsoHookEsm('react-router', { imported: true });
  // SvelteKit's server (adapter-node's build, Vite's dev server) imports its request store module by this name.
  alsoHookEsm('@sveltejs/kit/internal/server', { imported: true, byFile: true });
  // Vue's server renderer, as `vue/server-renderer` imports it (Nuxt's renderer, in its build and in the dev
  // server's worker thread).
  alsoHookEsm('@vue/server-renderer', { imported: true, inThreads: true });
  return ({ recorder, provider, subscribe, logger }) => ({
    name: 'routes',
    instrumentations: [],
    enable: () => watchRoutes(recorder, provider, subscribe, logger, lateRequests(recorder, requests)),
  });
}
