import { EventEmitter } from 'node:events';
import http from 'node:http';
import { listenHidden } from '../runtime/responseListeners';

type Listener = (...args: unknown[]) => unknown;
type Incoming = (this: unknown, event: string, ...args: unknown[]) => unknown;
type Instrumented = { _incomingRequestFunction?: (component: string, original: Incoming) => Incoming };

/** The listeners a response had when its 'request' event came in, until instrumentation-http hands it to the app. */
let noted: { response: object; before: Array<[string | symbol, unknown[]]> } | null = null;

/**
 * instrumentation-http adds a 'close' and an `errorMonitor` listener to each incoming request's response to end its
 * server span (`_incomingRequestFunction`,
 * https://github.com/open-telemetry/opentelemetry-js/blob/main/experimental/packages/opentelemetry-instrumentation-http/src/http.ts).
 * While `applies()` (Probe's instance under Probe's own configuration: an app's own setup adds them without Probe
 * too), whatever it added between the 'request' event and the app's handler is moved off the response, to be called
 * through listenHidden: the span ends on the same events, aborted and failed responses included. Set on Probe's own
 * instance before it patches node:http.
 */
export function hideServerListeners(instrumentation: object, applies: () => boolean): void {
  const target = instrumentation as Instrumented;
  const make = target._incomingRequestFunction;
  if (typeof make !== 'function') return;
  target._incomingRequestFunction = function (this: unknown, component, original) {
    const handOver = function (this: unknown, event: string, _request?: unknown, response?: unknown) {
      if (event === 'request' && noted && noted.response === response) moveAdded(noted.response, noted.before);
      return original.apply(this, arguments as unknown as Parameters<Incoming>);
    } as Incoming;
    const patched = make.call(this, component, handOver);
    return function (this: unknown, event: string, _request?: unknown, response?: unknown) {
      noted = null;
      if (event === 'request' && response instanceof http.ServerResponse && applies()) noted = { response, before: listenersOf(response) };
      return patched.apply(this, arguments as unknown as Parameters<Incoming>);
    } as Incoming;
  };
}

function listenersOf(emitter: EventEmitter): Array<[string | symbol, unknown[]]> {
  try {
    return emitter.eventNames().map((name) => [name, emitter.rawListeners(name)]);
  } catch {
    return [];
  }
}

function moveAdded(response: object, before: Array<[string | symbol, unknown[]]>): void {
  noted = null;
  try {
    const emitter = response as EventEmitter;
    for (const [name, now] of listenersOf(emitter)) {
      const had = before.find(([event]) => event === name)?.[1];
      // An 'error' listener stays: without it an error would be thrown where it is not.
      if (name === 'error') continue;
      for (const listener of now) {
        if (had?.includes(listener)) continue;
        // The prototype's own removal: a context binding's patched one maps listeners it wrapped, not these.
        EventEmitter.prototype.removeListener.call(emitter, name, listener as Listener);
        listenHidden(emitter, name, listener as Listener);
      }
    }
  } catch {
    // the listeners stay where they were: the span still ends
  }
}
