import { patchMethod } from '../util/patches';

type Fn = (this: unknown, ...args: unknown[]) => unknown;
type Factory = (original: Fn) => Fn;
type Wrap = (exports: object, name: string, factory: Factory) => unknown;

const WHY =
  "instrumentation-http hands the original `request` its own reading of the caller's arguments, even for a call it leaves untraced: getRequestInfo merges a URL and options into one object (an IPv6 URL's brackets dropped, no URL left for nock's or msw's matcher), the https wrapper adds `protocol`/`port`, and `headers: {}` and a context-bound callback are put in (https://github.com/open-telemetry/opentelemetry-js/blob/main/experimental/packages/opentelemetry-instrumentation-http/src/http.ts, `_outgoingRequestFunction`; https://github.com/open-telemetry/opentelemetry-js/blob/main/experimental/packages/opentelemetry-instrumentation-http/src/utils.ts, `getRequestInfo`); its `get` never calls the `get` it wraps (`_getPatchOutgoingGetFunction`, same file)";

/**
 * Makes an HttpInstrumentation's wrapper of `request` hand the function it wraps (node's own, or an interceptor
 * such as nock's installed before it) the arguments the wrapper itself was called with, the same objects, as
 * long as `own()` holds: the instance runs under Probe's configuration, traces no call and puts nothing on the
 * wire, so what the caller passed is all there is to pass on. `onRequest` gets each request there, as it is made.
 * Its `get` then calls the `get` it wraps. When the instance makes the app's spans instead (see adopt), it works as upstream.
 */
export function passCallerArguments(instrumentation: object, own: () => boolean, onRequest: (request: unknown) => void): void {
  const target = instrumentation as { _wrap?: Wrap };
  if (typeof target._wrap !== 'function') return;
  patchMethod(
    target as { _wrap: Wrap },
    '_wrap',
    'HttpInstrumentation#_wrap (node:http(s).request, get)',
    WHY,
    (wrap) =>
      function (this: unknown, exports, name, factory) {
        if (typeof factory !== 'function') return wrap.call(this, exports, name, factory);
        if (name === 'request') return wrap.call(this, exports, name, (original) => callerArgumentsOf(original, factory, own, onRequest));
        // Upstream's `get` calls its own wrapped `request`, never the `get` it wraps (`_getPatchOutgoingGetFunction`
        // in the same file): an interceptor that patched `get` before Probe would be skipped. Untraced, the call goes
        // to that `get`, as made (Probe's entry wrapper above records it).
        if (name === 'get') return wrap.call(this, exports, name, (original) => untracedGet(original, factory, own));
        return wrap.call(this, exports, name, factory);
      },
  );
}

function callerArgumentsOf(original: Fn, factory: Factory, own: () => boolean, onRequest: (request: unknown) => void): Fn {
  /** The arguments of the call in progress through this wrapper (a stack: a call may start another inside). */
  let callerArgs: IArguments | undefined;
  const passOn = function (this: unknown) {
    const asCalled = own() && callerArgs !== undefined;
    const request = original.apply(this, (asCalled ? callerArgs : arguments) as unknown as unknown[]);
    if (asCalled) {
      try {
        onRequest(request);
      } catch {
        // recording never changes the app's call
      }
    }
    return request;
  };
  const traced = factory(passOn);
  const wrapper = function (this: unknown) {
    const outer = callerArgs;
    callerArgs = arguments;
    try {
      return traced.apply(this, arguments as unknown as unknown[]);
    } finally {
      callerArgs = outer;
    }
  };
  Object.defineProperty(wrapper, 'name', { value: traced.name });
  return wrapper;
}

function untracedGet(original: Fn, factory: Factory, own: () => boolean): Fn {
  const traced = factory(original);
  const wrapper = function (this: unknown) {
    return (own() ? original : traced).apply(this, arguments as unknown as unknown[]);
  };
  Object.defineProperty(wrapper, 'name', { value: traced.name });
  return wrapper;
}
