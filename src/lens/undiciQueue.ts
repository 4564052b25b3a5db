import diagnostics from 'node:diagnostics_channel';
import { keepChannel } from '../util/keptChannels';
import { context, type Context } from '@opentelemetry/api';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import { patchMethod, recordPatch } from '../util/patches';
import { currentEntry, enterLibrary, takeEntry, type EntryStack } from '../origin/entry';
import { fetchScope } from './fetchScope';

const WHY =
  "undici's pools queue a request they have no free connection for and dispatch it later from another request's socket event, outside the async context of the call that made it; undici makes the request (`undici:request:create`, where the call's unit, span parent and code line are read) only then (https://github.com/nodejs/undici/blob/v7.16.0/lib/dispatcher/pool-base.js, `kOnDrain`)";

const WHY_COMPOSE =
  'an interceptor composed on an undici dispatcher may dispatch on a later turn, where undici makes the request (`undici:request:create`) with no app frame on the stack (https://github.com/nodejs/undici/blob/main/docs/docs/api/Dispatcher.md#dispatchercomposeinterceptors-interceptor)';

/** What a queued dispatch carries to the turn that dispatches it: the caller's context and, for its code line, its entry. */
interface Held {
  context: Context;
  entry: EntryStack | null;
}

type Dispatch = (this: object, opts: unknown, handler: unknown) => unknown;
type Proto = Record<string | symbol, unknown>;
type UndiciExports = Record<string, unknown> & { default?: Record<string, unknown> };

/**
 * A call belongs to the unit that made it however long it waits for a connection. A bounded `Pool` (or an `Agent`
 * of few connections, whose per-origin dispatchers are pools) keeps what it cannot send now in a queue of its own
 * and sends it from whichever socket frees up: that turn runs in the context of another call, or of none. The
 * pool's queueing step is watched (it receives the handler the queue keeps, after undici 7 wrapped a legacy one), and
 * the later dispatch of that same handler is run in the context, and with the code line, of the call that queued it.
 * Keyed by the handler object the queue hands back, never by the context of the later turn.
 */
export class UndiciQueue {
  private readonly held = new WeakMap<object, Held>();
  /** Requests undici made so far (any copy of it: the channel is process-wide), to tell a queued dispatch. */
  private created = 0;
  private readonly onCreate = () => void this.created++;
  private readonly patched = new WeakSet<object>();
  private enabled = false;

  constructor(private readonly logger: Logger) {}

  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    keepChannel('undici:request:create');
    diagnostics.subscribe('undici:request:create', this.onCreate);
  }

  disable(): void {
    if (!this.enabled) return;
    this.enabled = false;
    diagnostics.unsubscribe('undici:request:create', this.onCreate);
  }

  /** Patches the pool and dispatcher classes of one copy of the `undici` package (its exports). */
  patch(exports: UndiciExports): void {
    try {
      const classOf = (name: string) => (typeof exports[name] === 'function' ? (exports[name] as { prototype: object }).prototype : null);
      for (const name of ['Pool', 'BalancedPool', 'RoundRobinPool']) {
        const prototype = classOf(name);
        if (prototype) this.patchQueueing(prototype);
      }
      for (const name of ['Pool', 'BalancedPool', 'RoundRobinPool', 'Client', 'Agent']) {
        const prototype = classOf(name);
        if (prototype) this.patchDispatch(prototype);
      }
      const base = classOf('Dispatcher');
      if (base) this.patchCompose(base);
    } catch (error) {
      this.logger.warnOnce('undici-queue', 'could not follow undici pool queues', error);
    }
  }

  /**
   * A pool's own `[kDispatch]` (a symbol undici describes as `dispatch`, on the pools' shared base class): where a
   * request is queued when no connection is free. Its handler is the one the queue keeps and hands back.
   */
  private patchQueueing(prototype: object): void {
    let proto = prototype as Proto | null;
    let key: symbol | undefined;
    for (; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as Proto | null) {
      key = Object.getOwnPropertySymbols(proto).find((symbol) => symbol.description === 'dispatch');
      if (key) break;
    }
    if (!proto || !key || this.patched.has(proto)) return;
    this.patched.add(proto);
    const queue = this;
    const owner = proto as Record<symbol, Dispatch>;
    const original = owner[key];
    if (typeof original !== 'function') return;
    const replacement = function (this: object, opts: unknown, handler: unknown) {
      const before = queue.created;
      const result = original.call(this, opts, handler);
      // Queued: no request was made, and the pool says it needs a drain.
      if (result === false && queue.created === before && handler && typeof handler === 'object') queue.hold(handler);
      return result;
    };
    owner[key] = replacement;
    const slot = key;
    recordPatch('undici pool [kDispatch]', WHY, () => {
      if (owner[slot] === replacement) owner[slot] = original;
    });
  }

  /** `dispatch` as every dispatcher has it: a queued handler coming back is dispatched in its caller's context. */
  private patchDispatch(prototype: object): void {
    let proto = prototype as Proto | null;
    while (proto && !Object.prototype.hasOwnProperty.call(proto, 'dispatch')) proto = Object.getPrototypeOf(proto) as Proto | null;
    if (!proto || this.patched.has(proto)) return;
    this.patched.add(proto);
    const queue = this;
    patchMethod(
      proto as { dispatch: Dispatch },
      'dispatch',
      'undici dispatcher dispatch',
      WHY,
      (original) =>
        function (this: object, opts: unknown, handler: unknown) {
          const held = handler && typeof handler === 'object' ? queue.held.get(handler) : undefined;
          if (!held) return original.call(this, opts, handler);
          queue.held.delete(handler as object);
          const run = () => original.call(this, opts, handler);
          return context.with(held.context, () => (held.entry ? enterLibrary(run, run, held.entry) : run()));
        },
    );
  }

  /**
   * `dispatcher.compose(interceptors)`: an interceptor may dispatch on a later turn (a rate limiter, a token
   * refresh). The async context follows it there, but the app's stack does not: the composed dispatcher's
   * `dispatch` is where the app handed the call over, so its stack is taken there as the call's entry.
   */
  private patchCompose(prototype: object): void {
    if (this.patched.has(prototype)) return;
    this.patched.add(prototype);
    const queue = this;
    patchMethod(
      prototype as { compose: (...args: unknown[]) => unknown },
      'compose',
      'undici Dispatcher#compose',
      WHY_COMPOSE,
      (original) =>
        function (this: object, ...args: unknown[]) {
          const composed = original.apply(this, args);
          try {
            return composed && typeof (composed as { dispatch?: unknown }).dispatch === 'function'
              ? queue.entering(composed as { dispatch: Dispatch })
              : composed;
          } catch {
            return composed; // the app's dispatcher as undici made it
          }
        },
    );
  }

  /**
   * The composed dispatcher as undici made it (a Proxy over the dispatcher whose `dispatch` is the interceptor
   * chain), seen through one more Proxy whose `dispatch` takes the app's stack first. Nothing is set on undici's
   * objects: the dispatcher composed stays as it was.
   */
  private entering(composed: { dispatch: Dispatch }): object {
    const queue = this;
    const entered = function entered(this: unknown, opts: unknown, handler: unknown) {
      const dispatch = composed.dispatch;
      // A fetch carries its own code line; a call already inside an entry keeps the outer one.
      if (!queue.enabled || fetchScope.getStore() || currentEntry()) return dispatch.call(composed, opts, handler);
      const entry = takeEntry(entered);
      if (entry) entry.only = true;
      return enterLibrary(() => dispatch.call(composed, opts, handler), entered, entry);
    };
    return new Proxy(composed, { get: (target, key) => (key === 'dispatch' ? entered : (target as Record<string | symbol, unknown>)[key]) });
  }

  private hold(handler: object): void {
    if (!this.enabled) return;
    // A fetch carries its own record and code line in its context; another call takes the app's stack now.
    const entry = fetchScope.getStore() || currentEntry() ? null : takeEntry(UndiciQueue.prototype.hold);
    if (entry) entry.only = true;
    this.held.set(handler, { context: context.active(), entry });
  }
}

/** Loads with every copy of the `undici` package the app requires or imports, and patches its pools (see UndiciQueue). */
export class UndiciQueueInstrumentation extends InstrumentationBase {
  constructor(private readonly queue: UndiciQueue) {
    super('probe-undici-queue', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition('undici', ['>=5.0.0'], (exports: UndiciExports) => {
      // An ESM namespace holds the same classes as its CommonJS `default`.
      this.queue.patch(exports?.Pool ? exports : ((exports?.default as UndiciExports) ?? {}));
      return exports;
    });
  }
}
