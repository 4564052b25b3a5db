import http from 'node:http';
import https from 'node:https';
import { apiRegistry } from './globals';
import { isRealProvider } from './provider';
import { keepForeignMarks } from './foreignMarks';

type Marked = { __wrapped?: unknown; __original?: unknown; __unwrap?: unknown };

/** shimmer's marks, as @opentelemetry/instrumentation's `isWrapped` reads them. */
function isWrapped(value: unknown): boolean {
  const fn = value as (Marked & ((...args: unknown[]) => unknown)) | undefined;
  return typeof fn === 'function' && fn.__wrapped === true && typeof fn.__original === 'function' && typeof fn.__unwrap === 'function';
}

/** The tracer provider the app registered globally, if it is a real one. */
export function appTracerProvider(): unknown {
  const proxy = apiRegistry()?.trace as { getDelegate?: () => unknown } | undefined;
  const delegate = typeof proxy?.getDelegate === 'function' ? proxy.getDelegate() : proxy;
  return delegate && isRealProvider(delegate) ? delegate : undefined;
}

/**
 * True when the app's own OpenTelemetry setup already instruments node:http (its setup ran before Probe's
 * preload): a tracer provider is registered and `http.request`, `get` or `Server.prototype.emit` carry
 * shimmer's marks. Probe then makes no HttpInstrumentation of its own: a second copy's `_wrap` unwraps what is
 * there first (instrumentation's `_wrap`, see
 * https://github.com/open-telemetry/opentelemetry-js/blob/main/experimental/packages/opentelemetry-instrumentation/src/platform/node/instrumentation.ts),
 * so the app would lose its client and server spans and their `traceparent` headers.
 */
export function appInstrumentsHttp(): boolean {
  if (!appTracerProvider()) return false;
  return [http, https].some((mod) => isWrapped(mod.request) || isWrapped(mod.get) || isWrapped(mod.Server.prototype.emit));
}

/**
 * Makes an instrumentation's `_wrap` leave in place a wrapper it did not make: it stacks on top instead of
 * unwrapping first (an agent's shimmer wrapper, or a wrapper set after Probe's check), and shows that wrapper's
 * own marks (see keepForeignMarks). Its own wrappers are still unwrapped when it is disabled.
 */
export function neverUnwrapOthers(instrumentation: object): void {
  const target = instrumentation as {
    _wrap?: (exports: object, name: string, wrapper: unknown) => unknown;
    _unwrap?: (exports: object, name: string) => unknown;
  };
  const wrap = target._wrap;
  const unwrap = target._unwrap;
  if (typeof wrap !== 'function' || typeof unwrap !== 'function') return;
  const own = new WeakSet<object>();
  target._wrap = (exports, name, wrapper) => {
    const original = (exports as Record<string, unknown> | undefined)?.[name];
    const wrapped = wrap(exports, name, wrapper);
    if (wrapped && typeof wrapped === 'function') {
      own.add(wrapped);
      keepForeignMarks(wrapped, original);
    }
    return wrapped;
  };
  target._unwrap = (exports, name) => {
    const current = (exports as Record<string, unknown>)[name];
    if (current && typeof current === 'function' && own.has(current)) return unwrap(exports, name);
    return undefined;
  };
}
