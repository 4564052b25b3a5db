import { EventEmitter, errorMonitor } from 'node:events';

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
type Listener = (...args: unknown[]) => unknown;

/** The response's own `emit` and the listeners kept off it, on the response under a symbol (not enumerable). */
interface Hidden {
  emit: Emit;
  listeners: Map<string | symbol, Listener[]>;
}

const HIDDEN = Symbol('probe.response.hidden');
type WithHidden = { [HIDDEN]?: Hidden; emit: Emit };

/**
 * Listens to an incoming request's response without a listener on it: an app that counts its listeners
 * (`res.listenerCount('close')`, `res.eventNames()`), wraps `res.emit` or removes all of them sees only its own.
 * The listener is called from the response's `emit`, as one added before the app's handler ran would be: before
 * the response's listeners; an `errorMonitor` one as an 'error' is emitted, before it is delivered.
 */
export function listenHidden(response: object, event: string | symbol, listener: Listener): void {
  const target = response as WithHidden;
  let hidden = target[HIDDEN];
  if (!hidden) {
    hidden = { emit: target.emit, listeners: new Map() };
    Object.defineProperty(target, HIDDEN, { value: hidden, configurable: true, writable: true });
    // Not enumerable, as the prototype's was: the response's own keys stay what the app made them.
    Object.defineProperty(target, 'emit', { value: emitWithHidden, configurable: true, writable: true, enumerable: false });
  }
  const list = hidden.listeners.get(event);
  if (list) list.push(listener);
  else hidden.listeners.set(event, [listener]);
}

/** Shared by every response (no closure per request); `arguments` go on as they came. */
function emitWithHidden(this: WithHidden, event: string | symbol): boolean {
  const hidden = this[HIDDEN];
  // Node emits `errorMonitor` itself only for the response's own monitors: the hidden ones ran at 'error'.
  const list = event === errorMonitor ? undefined : hidden?.listeners.get(event === 'error' ? errorMonitor : event);
  if (list) {
    const args = Array.prototype.slice.call(arguments, 1) as unknown[];
    for (const listener of list.slice()) {
      try {
        listener.apply(this, args);
      } catch {
        // a listener of Probe's never changes delivery
      }
    }
  }
  return (hidden?.emit ?? EventEmitter.prototype.emit).apply(this, arguments as unknown as Parameters<Emit>);
}
