import type { Logger } from '../util/logger';
import { recordPatch } from '../runtime/patches';

/** Where Next.js 15 and later mark that they patched fetch (server/lib/patch-fetch-symbol). */
const NEXT_PATCH = Symbol.for('next-patch');
/** On Probe's wrapper of Next's fetch: the function of Next's it wraps. */
const WRAPS = Symbol.for('probe.fetch.next');

const WHY =
  "Next.js replaces globalThis.fetch with its own, which answers a call from its data cache without calling the fetch it wrapped (Probe's); it has no hook for it, and its fetch span exists only under a registered tracer provider (https://github.com/vercel/next.js/blob/v15.5.0/packages/next/src/server/lib/patch-fetch.ts createPatchedFetcher). Next 15+ marks its patch in a global slot (Symbol.for('next-patch')) just before it installs the function, Next 14 only on the function";

/** What Next hangs on its patched fetch: Next 14 reads `__nextPatched` on the global fetch before it patches again. */
const NEXT_PROPERTIES = ['__nextPatched', '__nextGetStaticStore', '_nextOriginalFetch'] as const;

type NextFetch = typeof fetch & { __nextPatched?: unknown; [WRAPS]?: typeof fetch } & Record<string, unknown>;

/** A running watch: `adopt` wraps the global fetch if Next installed one not wrapped yet (cheap when not). */
export interface NextFetchWatch {
  adopt(): void;
  stop(): void;
}

/**
 * Wraps Next.js's patched fetch (with `wrap`: see cacheLayerFetch) as soon as Next installs it as the global
 * fetch, above it, so that a call Next answers from its data cache is still seen. Next 15 and 16 set their
 * global slot first, then assign the function: the slot is watched and the wrap done on the next microtask, before
 * any render. Next 14 sets no slot: `adopt` is also called as each request starts (see fetchLens). Next reads its
 * own properties off the global fetch: they are copied onto the wrapper. After Next 16's dev server puts the fetch
 * it found back (`resetFetch`, on a reload) and patches again, the new one is wrapped in turn, under the same
 * ledger entry: the ledger stays one entry however many reloads come.
 */
export function watchNextFetch(wrap: (next: typeof fetch) => typeof fetch, logger: Logger): NextFetchWatch {
  let active = true;
  // The newest wrap: one ledger entry for all of them (Next 16's dev server patches anew on every reload), whose
  // undo puts back what the newest one replaced; an older wrapper is not the global fetch any more.
  let newest: { wrapped: NextFetch; descriptor: PropertyDescriptor } | undefined;
  const adopt = (): void => {
    if (!active) return;
    const current = globalThis.fetch as NextFetch | undefined;
    if (typeof current !== 'function' || current.__nextPatched !== true || current[WRAPS]) return;
    try {
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
      if (!descriptor?.configurable || descriptor.value !== current) return;
      const wrapped = wrap(current) as NextFetch;
      for (const name of NEXT_PROPERTIES) if (name in current) wrapped[name] = current[name];
      wrapped[WRAPS] = current;
      Object.defineProperty(globalThis, 'fetch', { ...descriptor, value: wrapped });
      const first = newest === undefined;
      newest = { wrapped, descriptor };
      // Next's fetch back while Probe's wrapper of it is still the global one.
      if (first)
        recordPatch('globalThis.fetch (Next.js)', WHY, () => {
          if (newest && globalThis.fetch === newest.wrapped) Object.defineProperty(globalThis, 'fetch', newest.descriptor);
        });
    } catch (error) {
      logger.warnOnce('next-fetch', "could not wrap Next.js's fetch", error);
    }
  };
  try {
    watchSlot(() => queueMicrotask(adopt));
  } catch (error) {
    logger.warnOnce('next-fetch-slot', "could not watch for Next.js's fetch", error);
  }
  // start() from the app's instrumentation.ts may come after Next patched fetch.
  adopt();
  return {
    adopt,
    stop: () => {
      active = false;
    },
  };
}

/** Calls `patched` whenever Next sets its slot to true (it patched fetch, or is about to assign the function). */
function watchSlot(patched: () => void): void {
  const existing = Object.getOwnPropertyDescriptor(globalThis, NEXT_PATCH);
  if (existing && !existing.configurable) return;
  let current: unknown = existing?.get ? existing.get.call(globalThis) : existing?.value;
  const get = () => current;
  Object.defineProperty(globalThis, NEXT_PATCH, {
    configurable: true,
    enumerable: existing?.enumerable ?? true,
    get,
    set(value: unknown) {
      current = value;
      if (value === true) patched();
    },
  });
  // Undone while the slot is still this watch: the value it holds stays there, as a plain value.
  recordPatch('globalThis[next-patch]', WHY, () => {
    if (Object.getOwnPropertyDescriptor(globalThis, NEXT_PATCH)?.get !== get) return;
    if (current === undefined && !existing) delete (globalThis as Record<symbol, unknown>)[NEXT_PATCH];
    else Object.defineProperty(globalThis, NEXT_PATCH, { configurable: true, enumerable: existing?.enumerable ?? true, writable: true, value: current });
  });
}
