import type { Logger } from '../util/logger';
import { recordPatch } from '../util/patches';

/** Where `@mswjs/interceptors` (used by msw and nock 14) keeps its running fetch interceptor. */
const FETCH_INTERCEPTOR = Symbol.for('fetch-interceptor');
const WHY =
  "msw and nock 14 install their own globalThis.fetch after the preload and answer from it without calling the fetch Probe wrapped; their interceptor's global slot is the one sign it was installed (https://github.com/mswjs/interceptors/blob/main/src/interceptors/fetch/index.ts)";

interface InterceptorLike {
  subscriptions?: Array<() => void>;
}

/**
 * msw and nock replace `globalThis.fetch` with their own, which answers mocked requests without calling the
 * fetch Probe wrapped at preload. They are loaded after the preload, so Probe watches the global slot their
 * interceptor registers in: when one is set, the interceptor has just installed its fetch, and Probe wraps
 * that one too (`wrap`). Their dispose restores the previous descriptor (Probe's own fetch) and deletes the
 * slot; a subscription pushed onto the interceptor re-arms the watch for the next one.
 */
export function watchFetchFakes(wrap: (fake: typeof fetch) => typeof fetch, logger: Logger): () => void {
  let active = true;
  const arm = (): void => {
    const existing = Object.getOwnPropertyDescriptor(globalThis, FETCH_INTERCEPTOR);
    if (existing && !existing.configurable) return;
    let current: unknown = existing?.get ? existing.get.call(globalThis) : existing?.value;
    const get = () => current;
    Object.defineProperty(globalThis, FETCH_INTERCEPTOR, {
      configurable: true,
      enumerable: false,
      get,
      set(value: unknown) {
        current = value;
        if (active && value) {
          try {
            adopt(value as InterceptorLike);
          } catch (error) {
            logger.warnOnce('fetch-fake', 'could not follow a fetch interceptor', error);
          }
        }
      },
    });
    // Undone while the slot is still this watch: the interceptor it holds stays there, as a plain value.
    recordPatch('globalThis[fetch-interceptor]', WHY, () => {
      if (Object.getOwnPropertyDescriptor(globalThis, FETCH_INTERCEPTOR)?.get !== get) return;
      if (current === undefined && !existing) delete (globalThis as Record<symbol, unknown>)[FETCH_INTERCEPTOR];
      else Object.defineProperty(globalThis, FETCH_INTERCEPTOR, { configurable: true, enumerable: false, writable: true, value: current });
    });
  };
  const adopt = (interceptor: InterceptorLike): void => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    const fake = descriptor?.value;
    if (typeof fake === 'function' && descriptor?.configurable) {
      const wrapped = wrap(fake as typeof fetch);
      Object.defineProperty(globalThis, 'fetch', { ...descriptor, value: wrapped });
      // The fake's own fetch back while Probe's wrapper of it is still the global (its dispose restores the one before).
      recordPatch('globalThis.fetch (a fetch interceptor)', WHY, () => {
        if (globalThis.fetch === wrapped) Object.defineProperty(globalThis, 'fetch', descriptor);
      });
    }
    // Runs after the interceptor deleted its slot (which removed this accessor) on dispose.
    if (Array.isArray(interceptor.subscriptions)) interceptor.subscriptions.push(() => active && arm());
  };
  try {
    arm();
  } catch (error) {
    logger.warnOnce('fetch-fake-arm', 'could not watch for fetch interceptors', error);
  }
  return () => {
    active = false;
  };
}
