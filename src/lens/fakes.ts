import type { Logger } from '../util/logger';

/** Where `@mswjs/interceptors` (used by msw and nock 14) keeps its running fetch interceptor. */
const FETCH_INTERCEPTOR = Symbol.for('fetch-interceptor');

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
    Object.defineProperty(globalThis, FETCH_INTERCEPTOR, {
      configurable: true,
      enumerable: false,
      get: () => current,
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
  };
  const adopt = (interceptor: InterceptorLike): void => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    const fake = descriptor?.value;
    if (typeof fake === 'function' && descriptor?.configurable) {
      Object.defineProperty(globalThis, 'fetch', { ...descriptor, value: wrap(fake as typeof fetch) });
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
