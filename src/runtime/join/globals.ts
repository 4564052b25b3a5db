import { patchMethod, recordPatch } from '../../util/patches';

/**
 * The @opentelemetry/api 1.x registry on globalThis, shared by every copy of the API package. Probe reads
 * it to find a tracer provider or context manager the app registered, and watches its `trace` slot to see
 * the app register one later, without ever registering a tracer provider itself.
 */
const API_KEY = Symbol.for('opentelemetry.js.api.1');
const WATCHED = Symbol.for('probe.join.watched');

type Registry = Record<string, unknown>;
interface ProxyProvider {
  getDelegate?: () => unknown;
  setDelegate?: (provider: unknown) => void;
  [WATCHED]?: boolean;
}

export function apiRegistry(): Registry | undefined {
  return (globalThis as unknown as Record<symbol, Registry | undefined>)[API_KEY];
}

/** True when someone (the app, or Probe earlier) already registered a global context manager. */
export function hasContextManager(): boolean {
  return Boolean(apiRegistry()?.context);
}

/**
 * Calls `onProvider` with the tracer provider the app registers globally: now if one is registered, and
 * later when `trace.setGlobalTracerProvider` hands it to the API's ProxyTracerProvider. Returns false when
 * there is no registry to watch yet.
 */
export function watchTracerProvider(onProvider: (provider: unknown) => void): boolean {
  const registry = apiRegistry();
  if (!registry) return false;
  const hook = (value: unknown) => {
    const proxy = value as ProxyProvider | undefined;
    if (!proxy || typeof proxy !== 'object') return;
    const delegate = typeof proxy.getDelegate === 'function' ? proxy.getDelegate() : proxy;
    if (delegate) onProvider(delegate);
    if (typeof proxy.setDelegate !== 'function' || proxy[WATCHED]) return;
    // The API hands a provider registered later to its ProxyTracerProvider here, and tells no one else
    // (https://github.com/open-telemetry/opentelemetry-js/blob/main/api/src/api/trace.ts setGlobalTracerProvider).
    patchMethod(
      proxy as Required<Pick<ProxyProvider, 'setDelegate'>>,
      'setDelegate',
      '@opentelemetry/api ProxyTracerProvider.setDelegate',
      'the only moment an app provider registered after Probe can be joined',
      (setDelegate) =>
        function (this: unknown, provider: unknown) {
          setDelegate.call(this, provider);
          onProvider(provider);
        },
    );
    proxy[WATCHED] = true;
    recordPatch('ProxyTracerProvider watch mark', 'lets a later start() watch it again', () => delete proxy[WATCHED]);
  };
  let current = registry.trace;
  hook(current);
  const descriptor = Object.getOwnPropertyDescriptor(registry, 'trace');
  if (descriptor && !descriptor.configurable) return true;
  // registerGlobal assigns the slot before it calls setDelegate, so the setter sees the proxy in time.
  Object.defineProperty(registry, 'trace', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set(value: unknown) {
      current = value;
      hook(value);
    },
  });
  // Undone as the plain data slot the API wrote, holding whatever was registered meanwhile.
  recordPatch(
    '@opentelemetry/api global registry `trace` slot',
    'registerGlobal assigns the slot and the API signals nothing else when an app registers its first tracer provider',
    () => Object.defineProperty(registry, 'trace', { configurable: true, enumerable: true, writable: true, value: current }),
  );
  return true;
}
