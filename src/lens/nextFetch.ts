import type { Logger } from '../util/logger';
import { recordPatch } from '../util/patches';
import { loadedNextMajor } from './loadedNext';

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
 * fetch, above it, so that a call Next answers from its data cache is still seen, and a call's origin is the app's
 * line that called Next's fetch. Next 15 and 16 set their global slot, then assign the function in the same
 * synchronous run: once the slot is set, each assignment is wrapped as it is made (see watchAssignments), so a call
 * the app makes in that same run (a route handler calling fetch before any await, in the request that patched
 * it) goes through the wrapper too; a microtask adopts a function installed some other way. Next 14 sets no slot:
 * `adopt` is also called as each request starts (see fetchLens), and once it found Next 14's fetch, or Next 14's
 * server loaded at start or at the first request (before that request's code patches fetch), assignments are
 * watched the same way. Next reads its own properties off the global fetch: they are copied onto the wrapper.
 * After Next's dev server puts the fetch it found back (`resetFetch`, on a reload) and patches again, the new one
 * is wrapped in turn: the ledger stays the same entries however many reloads come.
 */
export function watchNextFetch(wrap: (next: typeof fetch) => typeof fetch, logger: Logger): NextFetchWatch {
  let active = true;
  // Set once Next 15+ sets its slot: without it, a Next fetch adopted is Next 14's (see watchAssignments).
  let slotSeen = false;
  let assignmentsWatched = false;
  // The newest wrap: one ledger entry for all of them (Next 16's dev server patches anew on every reload), whose
  // undo puts back what the newest one replaced; an older wrapper is not the global fetch any more.
  let newest: { wrapped: NextFetch; descriptor: PropertyDescriptor } | undefined;
  const wrapNext = (next: NextFetch): NextFetch => {
    const wrapped = wrap(next) as NextFetch;
    for (const name of NEXT_PROPERTIES) if (name in next) wrapped[name] = next[name];
    wrapped[WRAPS] = next;
    return wrapped;
  };
  const watchNextAssignments = (): void => {
    assignmentsWatched = true;
    watchAssignments((next) => (active && isUnwrappedNext(next) ? wrapNext(next) : next), logger);
  };
  // Looks for Next 14's server (see loadedNextMajor) at start and at the first request after it, then no more.
  let lookups = 0;
  const adopt = (): void => {
    if (!active) return;
    const current = globalThis.fetch as NextFetch | undefined;
    if (!isUnwrappedNext(current)) {
      // Next 14 patches fetch inside the first app-router request, after that request started (and after
      // start() from instrumentation.ts): with its server loaded, assignments are watched before that first patch,
      // so a data-cache hit inside the very first request is seen too.
      if (!slotSeen && !assignmentsWatched && lookups < 2) {
        lookups++;
        if (loadedNextMajor() === 14) watchNextAssignments();
      }
      return;
    }
    try {
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
      if (!descriptor?.configurable || descriptor.value !== current) return;
      const wrapped = wrapNext(current);
      Object.defineProperty(globalThis, 'fetch', { ...descriptor, value: wrapped });
      const first = newest === undefined;
      newest = { wrapped, descriptor };
      // Next's fetch back while Probe's wrapper of it is still the global one.
      if (first)
        recordPatch('globalThis.fetch (Next.js)', WHY, () => {
          if (newest && globalThis.fetch === newest.wrapped) Object.defineProperty(globalThis, 'fetch', newest.descriptor);
        });
      if (!slotSeen && !assignmentsWatched) watchNextAssignments();
    } catch (error) {
      logger.warnOnce('next-fetch', "could not wrap Next.js's fetch", error);
    }
  };
  try {
    watchSlot(() => {
      slotSeen = true;
      // Next assigns its function right after this, before anything else runs: watched from here, it is wrapped
      // as it is assigned. A microtask was too late for a call made in the same run (the origin of such a call was
      // read from its own stack through Next's fetch, and a data-cache hit there was no row).
      if (active && !assignmentsWatched) watchNextAssignments();
      queueMicrotask(adopt);
    });
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

function isUnwrappedNext(value: unknown): value is NextFetch {
  return typeof value === 'function' && (value as NextFetch).__nextPatched === true && !(value as NextFetch)[WRAPS];
}

const WHY_ASSIGNED =
  "Next.js patches fetch by a plain assignment inside the request that first needs it, and the app's code may call it in that same synchronous run: Next 15 and 16 set their global slot just before (https://github.com/vercel/next.js/blob/v15.5.0/packages/next/src/server/lib/patch-fetch.ts patchFetch), Next 14 marks nothing and its dev server puts back the fetch it stored before each request (DevServer.restorePatchedGlobals) and patches it again right before the app's code runs (https://github.com/vercel/next.js/blob/v14.2.35/packages/next/src/server/lib/patch-fetch.ts patchFetch): the global fetch becomes an accessor whose setter wraps each Next fetch as it is assigned, so its data-cache hits are seen and its calls have the app's line. Only once Next's slot was set, a Next 14 fetch was seen, or Next 14's server found loaded (its first patch comes inside the first app-router request)";

/**
 * `globalThis.fetch` becomes an accessor holding the same value, whose setter passes each value assigned through
 * `adopt` (a Next fetch is wrapped there and then, before the request's code calls it). Undone while the accessor
 * is still Probe's: a plain writable value again, Next's own fetch when Probe's wrapper of it is the current one.
 */
function watchAssignments(adopt: (value: NextFetch) => NextFetch, logger: Logger): void {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (!descriptor?.configurable || !('value' in descriptor)) return;
  let current: unknown = descriptor.value;
  const get = () => current;
  Object.defineProperty(globalThis, 'fetch', {
    configurable: true,
    enumerable: descriptor.enumerable ?? true,
    get,
    set(value: unknown) {
      current = value;
      try {
        current = adopt(value as NextFetch);
      } catch (error) {
        logger.warnOnce('next-fetch', "could not wrap Next.js's fetch", error);
      }
    },
  });
  recordPatch('globalThis.fetch assignments (Next.js)', WHY_ASSIGNED, () => {
    if (Object.getOwnPropertyDescriptor(globalThis, 'fetch')?.get !== get) return;
    const value = (current as NextFetch | undefined)?.[WRAPS] ?? current;
    Object.defineProperty(globalThis, 'fetch', { configurable: true, enumerable: descriptor.enumerable ?? true, writable: true, value });
  });
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
