import diagnostics from 'node:diagnostics_channel';
import { keepChannel } from '../util/keptChannels';
import { debuglog } from 'node:util';
import type { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { patchMethod } from '../util/patches';

const FIRST = 'undici:request:create';

const WHY =
  "undici subscribes its own NODE_DEBUG loggers (NODE_DEBUG=undici, fetch, websocket) only to channels no one listens to yet when it loads; with one of them on, the instrumentation's subscriptions are held until undici's first request so that undici's choice is the one it makes without Probe (https://github.com/nodejs/undici/blob/v7.16.0/lib/core/diagnostics.js)";

/**
 * True when the app runs with one of undici's own debug loggers on. Node reads NODE_DEBUG once, as it starts; undici
 * asks `util.debuglog(name).enabled` the same way. Without one of them undici subscribes nothing as it loads, and
 * Probe subscribes at once, as any other subscriber would.
 */
const UNDICI_DEBUG = ['undici', 'fetch', 'websocket'].some((name) => debuglog(name).enabled);

/** A subscription held for undici's first request, with what undoes it once made. */
interface Held {
  subscribe: () => () => void;
  undo: (() => void) | null;
}

const pending = new Set<Held>();
let open = !UNDICI_DEBUG;

/**
 * Subscribes to an undici channel the way the app never notices. undici (Node's fetch and the `undici` package)
 * decides, as it loads, whether to print its NODE_DEBUG lines: only when its client, request and WebSocket
 * channels have no subscriber yet, so a subscriber made before it loads silences it. undici publishes
 * `undici:request:create` for every request before any other event about it, and it is loaded by then: so while its
 * debug lines are on, every `undici:` channel but that one is subscribed at the first request, and whatever undici
 * chose as it loaded is what it chooses without Probe. Other channels, and every channel while undici's debug lines
 * are off, are subscribed at once. Returns what unsubscribes (or cancels).
 */
export function subscribeUndici(name: string, subscribe: () => () => void): () => void {
  keepChannel(name);
  if (open || name === FIRST || !name.startsWith('undici:')) return subscribe();
  if (pending.size === 0) {
    keepChannel(FIRST);
    diagnostics.subscribe(FIRST, onFirst);
  }
  const held: Held = { subscribe, undo: null };
  pending.add(held);
  return () => {
    if (!pending.delete(held)) return held.undo?.();
    if (pending.size === 0) diagnostics.unsubscribe(FIRST, onFirst);
  };
}

/** Subscribes `handler` to `name` through subscribeUndici. */
export function onUndiciChannel(name: string, handler: (message: unknown) => void): () => void {
  return subscribeUndici(name, () => {
    diagnostics.subscribe(name, handler);
    return () => diagnostics.unsubscribe(name, handler);
  });
}

/** Runs inside undici's first request's `undici:request:create`: the held subscriptions are made. */
function onFirst(): void {
  if (open) return;
  open = true;
  // Not unsubscribed here: Node 20 removes a subscriber from the very list its publish is walking, and the
  // subscriber after this one (an app's own instrumentation) would miss this first request.
  queueMicrotask(() => diagnostics.unsubscribe(FIRST, onFirst));
  const held = [...pending];
  pending.clear();
  for (const entry of held) {
    try {
      entry.undo = entry.subscribe();
    } catch {
      // a subscription that failed is left out; the request is the app's either way
    }
  }
}

type ChannelSub = { name: string; unsubscribe: () => void };
type Subscribing = { subscribeToChannel?: (name: string, onMessage: (message: unknown) => void) => void; _channelSubs?: ChannelSub[] };

/**
 * instrumentation-undici subscribes all its channels in `enable()`, which its constructor calls, before the app loads
 * undici: those channels are kept (see keepChannel) whatever the flags. While undici's debug lines are on, its subscriptions
 * go through subscribeUndici, kept in its own list so that its `disable()` undoes (or cancels) them. The ones its
 * constructor made are made again that way.
 */
export function holdUndiciSubscriptions(instrumentation: UndiciInstrumentation): void {
  const owner = instrumentation as unknown as Subscribing;
  // Kept before anything unsubscribes them: the `disable()` below, or Probe's shutdown.
  for (const sub of Array.isArray(owner._channelSubs) ? owner._channelSubs : []) keepChannel(sub.name);
  if (open) return;
  const undo = patchMethod(
    owner,
    'subscribeToChannel',
    'UndiciInstrumentation#subscribeToChannel',
    WHY,
    (original) =>
      function (this: Subscribing, name: string, onMessage: (message: unknown) => void) {
        const subs = this._channelSubs;
        if (!Array.isArray(subs)) return original!.call(this, name, onMessage);
        subs.push({ name, unsubscribe: onUndiciChannel(name, onMessage) });
      },
  );
  if (!undo || !instrumentation.isEnabled()) return;
  instrumentation.disable();
  instrumentation.enable();
}
