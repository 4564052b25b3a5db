import { patchMethod } from '../../util/patches';

type GetServer = (this: unknown, userFunction: unknown, options?: { target?: unknown }) => unknown;
type Wrap = (this: unknown, userFunction: unknown, signatureType?: unknown) => unknown;
type Handler = (this: unknown, req: object, res: object) => unknown;

/**
 * Google's functions framework serves one function per server: an Express app whose one catch-all
 * (`app.all('/{*splat}')`) hands every request to it, so Express names nothing. The function's name, the target
 * it was started with (`--target`, `FUNCTION_TARGET`), is the route: that is how the platform routes to it. The
 * framework keeps the target only in the options `getServer` is given
 * (https://github.com/GoogleCloudPlatform/functions-framework-nodejs/blob/main/src/server.ts), and makes the
 * handler that calls the function there (`wrapUserFunction`, src/function_wrappers.ts): `getServer` is wrapped to
 * know the target while it builds the app, `wrapUserFunction` to name each request that reaches the function by
 * it; its test server (`getTestServer(name)` of the `testing` export) serves the function of that name. A request
 * the framework answers itself (`/favicon.ico`, its ignored routes) has no route. The modules are CommonJS and read
 * each other's exports at call time.
 */
export class FunctionsFramework {
  /** The target of the `getServer` call running now (it makes the function's handler synchronously). */
  private building: string | null = null;

  constructor(private readonly noteRoute: (request: object, route: string) => void) {}

  patchServer(exports: { getServer?: unknown }): (() => void) | null {
    if (typeof exports?.getServer !== 'function') return null;
    const self = this;
    return patchMethod(
      exports as { getServer: GetServer },
      'getServer',
      '@google-cloud/functions-framework build/src/server.js getServer',
      "knows the function's target while the framework builds its server; the target is kept only in the options getServer is handed (https://github.com/GoogleCloudPlatform/functions-framework-nodejs/blob/main/src/server.ts)",
      (original) =>
        function getServer(this: unknown, _userFunction: unknown, options?: { target?: unknown }) {
          const before = self.building;
          let target: unknown = null;
          try {
            target = options?.target;
          } catch {
            // built unnamed
          }
          // getTestServer(name) builds with an empty target: the name it was given stays (see patchTesting).
          self.building = typeof target === 'string' && target ? target : before;
          try {
            return original.apply(this, arguments as unknown as Parameters<GetServer>);
          } finally {
            self.building = before;
          }
        },
    );
  }

  /** The framework's test server (`getTestServer(name)` of its `testing` export) serves the function of that name. */
  patchTesting(exports: { getTestServer?: unknown }): (() => void) | null {
    if (typeof exports?.getTestServer !== 'function') return null;
    const self = this;
    return patchMethod(
      exports as { getTestServer: (this: unknown, name: unknown) => unknown },
      'getTestServer',
      '@google-cloud/functions-framework build/src/testing.js getTestServer',
      'knows the function a test server serves: getTestServer hands getServer an empty target (https://github.com/GoogleCloudPlatform/functions-framework-nodejs/blob/main/src/testing.ts)',
      (original) =>
        function getTestServer(this: unknown, name: unknown) {
          const before = self.building;
          self.building = typeof name === 'string' && name ? name : before;
          try {
            return original.apply(this, arguments as unknown as [unknown]);
          } finally {
            self.building = before;
          }
        },
    );
  }

  patchWrappers(exports: { wrapUserFunction?: unknown }): (() => void) | null {
    if (typeof exports?.wrapUserFunction !== 'function') return null;
    const self = this;
    return patchMethod(
      exports as { wrapUserFunction: Wrap },
      'wrapUserFunction',
      '@google-cloud/functions-framework build/src/function_wrappers.js wrapUserFunction',
      'sees each request that reaches the function, named by its target; the framework routes every path to it through one Express catch-all (https://github.com/GoogleCloudPlatform/functions-framework-nodejs/blob/main/src/function_wrappers.ts)',
      (original) =>
        function wrapUserFunction(this: unknown) {
          const handler = original.apply(this, arguments as unknown as Parameters<Wrap>);
          const target = self.building;
          if (target === null || typeof handler !== 'function') return handler;
          const noteRoute = self.noteRoute;
          // The same arity as the framework's handler: Express tells an error handler by its length.
          return Object.defineProperty(
            function (this: unknown, req: object) {
              try {
                if (req) noteRoute(req, target);
              } catch {
                // the request goes on unnamed
              }
              return (handler as Handler).apply(this, arguments as unknown as Parameters<Handler>);
            },
            'length',
            { value: handler.length },
          );
        },
    );
  }
}
