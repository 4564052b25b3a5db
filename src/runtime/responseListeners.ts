import { EventEmitter, errorMonitor } from 'node:events';

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
type Listener = (...args: unknown[]) => unknown;

/**
 * The response's own `emit` and the listeners kept off it (events and listeners side by side: a response has a
 * few), on the response under a symbol (a symbol key is in none of its listed keys).
 */
interface Hidden {
  emit: Emit;
  events: Array<string | symbol>;
  listeners: Listener[];
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
    hidden = target[HIDDEN] = { emit: target.emit, events: [], listeners: [] };
    // Not enumerable, as the prototype's was: the response's own keys stay what the app made them.
    Object.defineProperty(target, 'emit', { value: emitWithHidden, configurable: true, writable: true, enumerable: false });
  }
  hidden.events.push(event);
  hidden.listeners.push(listener);
}

/** Shared by every response (no closure per request); `arguments` go on as they came. */
function emitWithHidden(this: WithHidden, event: string | symbol): boolean {
  const hidden = this[HIDDEN];
  if (!hidden) return EventEmitter.prototype.emit.apply(this, arguments as unknown as Parameters<Emit>);
  // Node emits `errorMonitor` itself only for the response's own monitors: the hidden ones ran at 'error'.
  const key = event === 'error' ? errorMonitor : event === errorMonitor ? null : event;
  if (key !== null && hidden.events.includes(key)) {
    const args = Array.prototype.slice.call(arguments, 1) as unknown[];
    const { events, listeners } = hidden;
    for (let at = 0, count = events.length; at < count; at++) {
      if (events[at] !== key) continue;
      try {
        listeners[at].apply(this, args);
      } catch {
        // a listener of Probe's never changes delivery
      }
    }
  }
  return hidden.emit.apply(this, arguments as unknown as Parameters<Emit>);
}
