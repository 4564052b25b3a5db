import { EventEmitter } from 'node:events';
import http from 'node:http';
import { listenHidden } from '../runtime/responseListeners';

type Listener = (...args: unknown[]) => unknown;
type Incoming = (this: unknown, event: string, ...args: unknown[]) => unknown;
type Instrumented = { _incomingRequestFunction?: (component: string, original: Incoming) => Incoming };

/** The response instrumentation-http is setting up, and the listeners it added to it so far. */
let capture: { response: object; added: Array<[string | symbol, Listener]> } | null = null;

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
      if (event === 'request' && capture?.response === response) release(true);
      return original.apply(this, arguments as unknown as Parameters<Incoming>);
    } as Incoming;
    const patched = make.call(this, component, handOver);
    return function (this: unknown, event: string, _request?: unknown, response?: unknown) {
      if (event !== 'request' || !(response instanceof http.ServerResponse) || !applies())
        return patched.apply(this, arguments as unknown as Parameters<Incoming>);
      if (capture) release(false);
      capture = { response, added: [] };
      EventEmitter.prototype.on.call(response, 'newListener', noteAdded);
      try {
        return patched.apply(this, arguments as unknown as Parameters<Incoming>);
      } finally {
        // Not handed over (the instrumentation threw): its listeners stay where they are.
        if (capture?.response === response) release(false);
      }
    } as Incoming;
  };
}

/**
 * Notes each listener added to the response while the instrumentation sets it up (Node emits 'newListener' before
 * adding one; nothing of the app's runs then). An 'error' listener stays: without it an error would be thrown.
 */
function noteAdded(this: unknown, event: string | symbol, listener: Listener): void {
  if (capture && capture.response === this && event !== 'error' && event !== 'newListener') capture.added.push([event, listener]);
}

/** Ends the capture; with `move`, what it noted is moved off the response, to be called through listenHidden. */
function release(move: boolean): void {
  const { response, added } = capture!;
  capture = null;
  const emitter = response as EventEmitter;
  try {
    EventEmitter.prototype.removeListener.call(emitter, 'newListener', noteAdded);
    if (!move) return;
    for (const [event, listener] of added) {
      // The prototype's own removal: a context binding's patched one maps listeners it wrapped, not these.
      const had = emitter.listenerCount(event);
      EventEmitter.prototype.removeListener.call(emitter, event, listener);
      if (emitter.listenerCount(event) < had) listenHidden(emitter, event, listener);
    }
  } catch {
    // the listeners stay where they were: the span still ends
  }
}
