import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import type { Logger } from '../../util/logger';
import type { ExpressTemplates } from './ExpressTemplates';
import { patchLayerHandle, patchRouterUse } from './expressRoutes';
import { patchKoaContext } from './koaRoutes';
import { patchHonoContext } from './honoRoutes';
import { patchNextBaseServer } from './nextRoutes';
import { patchSvelteKitServer } from './svelteKitRoutes';
import { patchVueServerRenderer } from './vueRoutes';
import { patchHapiRequest } from './hapiRoutes';
import { FunctionsFramework } from './functionsFrameworkRoutes';
import { patchReactRouter, wrapReactRouterExpress } from './reactRouterRoutes';
import { recordPatch } from '../../util/patches';
import type { OpenLate } from '../LateRequests';

type NoteRoute = (request: object | undefined, route: string | (() => unknown), fallback?: boolean) => void;

/**
 * The frameworks whose route template cannot be read through a diagnostics channel: Express 4, Express 5 on
 * router < 2.3, Koa, Hono, Hapi, Google's functions framework, Next.js, React Router, SvelteKit and Vue's server
 * renderer, patched as their modules are required (CommonJS). Fastify and router >= 2.3
 * need no patch (see fastifyRoutes, expressRoutes). Each patch goes through the ledger (util/patches).
 */
export class RouteInstrumentation extends InstrumentationBase {
  private readonly undos = new WeakMap<object, Array<() => void>>();

  constructor(
    private readonly templates: ExpressTemplates,
    private readonly noteRoute: NoteRoute,
    private readonly probeLogger: Logger,
    private readonly openLate: OpenLate,
  ) {
    super('probe-routes', '0.1.0', {});
  }

  protected init() {
    // init() runs in the base class's constructor, before this class's fields are set: noteRoute is read later.
    const functions = new FunctionsFramework((request, route) => this.noteRoute(request, route));
    return [
      new InstrumentationNodeModuleDefinition('express', ['>=4.0.0 <5'], undefined, undefined, [
        this.file('express/lib/router/index.js', ['>=4.0.0 <5'], (proto) => patchRouterUse(proto, 'express 4 Router use')),
        this.file('express/lib/router/layer.js', ['>=4.0.0 <5'], (Layer) =>
          patchLayerHandle(Layer.prototype, 'handle_request', 'express 4 Layer.prototype.handle_request', this.templates),
        ),
      ]),
      // router >= 2.3 publishes the same facts on its diagnostics channel.
      this.module('router', ['>=2.0.0 <2.3.0'], (Router) => patchRouterUse(Router.prototype, 'router Router.prototype.use'), [
        this.file('router/lib/layer.js', ['>=2.0.0 <2.3.0'], (Layer) =>
          patchLayerHandle(Layer.prototype, 'handleRequest', 'router Layer.prototype.handleRequest', this.templates),
        ),
      ]),
      this.module('koa', ['>=2.0.0 <4'], (Application) => patchKoaContext(Application, this.noteRoute)),
      new InstrumentationNodeModuleDefinition('hono', ['>=4.0.0 <5'], undefined, undefined, [
        this.file('hono/dist/cjs/context.js', ['>=4.0.0 <5'], (exports) => patchHonoContext(exports, this.noteRoute)),
      ]),
      // Hapi: the route its request matched (see hapiRoutes).
      new InstrumentationNodeModuleDefinition('@hapi/hapi', ['>=18.0.0 <22'], undefined, undefined, [
        this.file('@hapi/hapi/lib/request.js', ['>=18.0.0 <22'], (Request) => patchHapiRequest(Request, this.noteRoute)),
      ]),
      // Google's functions framework: the function's target names each request it serves (see functionsFrameworkRoutes).
      new InstrumentationNodeModuleDefinition('@google-cloud/functions-framework', ['>=3.0.0 <6'], undefined, undefined, [
        this.file('@google-cloud/functions-framework/build/src/server.js', ['>=3.0.0 <6'], (exports) => functions.patchServer(exports)),
        this.file('@google-cloud/functions-framework/build/src/function_wrappers.js', ['>=3.0.0 <6'], (exports) => functions.patchWrappers(exports)),
        this.file('@google-cloud/functions-framework/build/src/testing.js', ['>=3.0.0 <6'], (exports) => functions.patchTesting(exports)),
      ]),
      // React Router in framework mode: the route its own matcher finds in the build (see reactRouterRoutes).
      this.module('react-router', ['>=7.0.0 <8'], (exports) => patchReactRouter(exports, this.noteRoute)),
      new InstrumentationNodeModuleDefinition('@react-router/express', ['>=7.0.0 <8'], (exports) => this.expressCopy(exports)),
      // SvelteKit: its route id, read off the request event it hands the app's hooks (see svelteKitRoutes).
      new InstrumentationNodeModuleDefinition('@sveltejs/kit', ['>=2.0.0 <3'], undefined, undefined, [
        this.file('@sveltejs/kit/src/exports/internal/server.js', ['>=2.0.0 <3'], (exports) => patchSvelteKitServer(exports, this.noteRoute)),
      ]),
      // A Vue app rendered on the server (Nuxt's pages): the route its vue-router resolved (see vueRoutes).
      this.module('@vue/server-renderer', ['>=3.0.0 <4'], (exports) => patchVueServerRenderer(exports, this.noteRoute)),
      // Next.js: the route it matched, read from its request meta (see nextRoutes).
      new InstrumentationNodeModuleDefinition('next', ['>=13.4.0 <17'], undefined, undefined, [
        this.file('next/dist/server/base-server.js', ['>=13.4.0 <17'], (exports) => patchNextBaseServer(exports, this.noteRoute, this.openLate)),
      ]),
    ];
  }

  /** `@react-router/express` as a namespace `require` cannot change: the requirer gets a copy (see reactRouterRoutes). */
  private expressCopy(exports: any): any {
    if (!exports || Object.isExtensible(exports)) return exports;
    try {
      let stopped = false;
      const copy = wrapReactRouterExpress(exports, this.noteRoute, () => stopped);
      if (!copy) return exports;
      recordPatch(
        '@react-router/express createRequestHandler (a copy for the requirer)',
        "reads the route React Router matched from the build's route manifest, where require(esm) loads React Router past the loader hooks (https://github.com/remix-run/react-router/blob/main/packages/react-router-express/server.ts)",
        () => {
          stopped = true;
        },
      );
      return copy;
    } catch (error) {
      this.probeLogger.warnOnce('route-@react-router/express', 'could not read routes from @react-router/express', error);
      return exports;
    }
  }

  private module(name: string, versions: string[], patch: (exports: any) => (() => void) | null, files: InstrumentationNodeModuleFile[] = []) {
    return new InstrumentationNodeModuleDefinition(
      name,
      versions,
      (exports) => this.apply(exports, name, patch),
      (exports) => this.revert(exports),
      files,
    );
  }

  private file(name: string, versions: string[], patch: (exports: any) => (() => void) | null) {
    return new InstrumentationNodeModuleFile(
      name,
      versions,
      (exports) => this.apply(exports, name, patch),
      (exports) => this.revert(exports),
    );
  }

  private apply(exports: any, name: string, patch: (exports: any) => (() => void) | null): any {
    if (!exports || this.undos.has(exports)) return exports;
    try {
      const undo = patch(exports);
      if (undo) this.undos.set(exports, [undo]);
    } catch (error) {
      this.probeLogger.warnOnce(`route-${name}`, `could not read routes from ${name}`, error);
    }
    return exports;
  }

  private revert(exports: any): void {
    const undos = exports && this.undos.get(exports);
    if (!undos) return;
    this.undos.delete(exports);
    for (const undo of undos) undo();
  }
}
