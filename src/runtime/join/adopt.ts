import { trace, type Span, type TracerProvider } from '@opentelemetry/api';
import type { HttpInstrumentation, HttpInstrumentationConfig } from '@opentelemetry/instrumentation-http';
import type { Logger } from '../../util/logger';
import { patchMethod } from '../../util/patches';

type Hook = (span: Span, message: never) => void;
type Definition = { patch?: (exports: unknown, version?: string) => unknown; unpatch?: (exports: unknown, version?: string) => unknown };
type Proto = {
  setConfig(this: HttpInstrumentation, config?: HttpInstrumentationConfig): void;
  setTracerProvider(this: HttpInstrumentation, provider: TracerProvider): void;
  _getHttpInstrumentation?(this: HttpInstrumentation): Definition;
  _getHttpsInstrumentation?(this: HttpInstrumentation): Definition;
};

/**
 * node:http is patched once per copy of @opentelemetry/instrumentation: after Probe's preload loaded `http`,
 * an app's own `new HttpInstrumentation()` of the same copy never sees the module and stays inert. So Probe's
 * instance takes the app instance's place: it adopts the app's configuration (its hooks run first, then
 * Probe's) and the app's tracer provider, and from then on makes exactly the spans the app asked for.
 */
export function adoptAppHttpInstrumentation(
  ctor: { prototype: unknown },
  probe: HttpInstrumentation,
  probeHooks: Pick<HttpInstrumentationConfig, 'requestHook' | 'responseHook'>,
  logger: Logger,
): void {
  let adopted = false;
  const proto = ctor.prototype as Proto;
  const why =
    'instrumentation-http patches node:http once per copy of @opentelemetry/instrumentation: its require hook is a singleton that never hands an already-patched module to a later instance (https://github.com/open-telemetry/opentelemetry-js/blob/main/experimental/packages/opentelemetry-instrumentation/src/platform/node/RequireInTheMiddleSingleton.ts)';
  const safely = (what: () => void) => {
    try {
      what();
    } catch (error) {
      logger.warnOnce('join-http', 'could not take over the app http instrumentation', error);
    }
  };
  // The app's instance stays inert, whichever way the module reaches it: under ESM an app's own
  // import-in-the-middle hook hands it `node:http` again, and two instances would make two spans per call.
  const standIns = new WeakSet<object>();
  for (const key of ['_getHttpInstrumentation', '_getHttpsInstrumentation'] as const) {
    patchMethod(
      proto as Required<Proto>,
      key,
      `HttpInstrumentation.prototype.${key}`,
      why,
      (make) =>
        function (this: HttpInstrumentation) {
          const definition = make.call(this);
          const instance = this;
          for (const hook of ['patch', 'unpatch'] as const) {
            const original = definition?.[hook];
            if (typeof original !== 'function') continue;
            definition[hook] = function (this: unknown, exports: unknown, version?: string) {
              return standIns.has(instance) ? exports : original.call(this, exports, version);
            };
          }
          return definition;
        },
    );
  }
  patchMethod(
    proto,
    'setConfig',
    'HttpInstrumentation.prototype.setConfig',
    why,
    (setConfig) =>
      function (this: HttpInstrumentation, config) {
        setConfig.call(this, config);
        if (this === probe) return;
        standIns.add(this);
        safely(() => {
          const app = this.getConfig();
          setConfig.call(probe, {
            ...app,
            requestHook: both(app.requestHook, probeHooks.requestHook),
            responseHook: both(app.responseHook, probeHooks.responseHook),
          });
          // The API's global (proxy) provider: the app's provider as soon as it registers one.
          if (!adopted) probe.setTracerProvider(trace.getTracerProvider());
          adopted = true;
        });
      },
  );
  patchMethod(
    proto,
    'setTracerProvider',
    'HttpInstrumentation.prototype.setTracerProvider',
    why,
    (setTracerProvider) =>
      function (this: HttpInstrumentation, provider) {
        setTracerProvider.call(this, provider);
        if (this !== probe) safely(() => setTracerProvider.call(probe, provider));
      },
  );
}

function both<H extends Hook>(first: H | undefined, second: H | undefined): H | undefined {
  if (!first) return second;
  if (!second) return first;
  return ((span: Span, message: never) => {
    first(span, message);
    second(span, message);
  }) as H;
}
