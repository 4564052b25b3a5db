import { randomBytes } from 'node:crypto';
import { context, type Context } from '@opentelemetry/api';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import type { CallRecord } from '../runtime/CallRecord';
import type { FetchCall } from './FetchCall';
import type { LensFactory } from './Lens';
import { currentEntry, enterLibrary } from '../origin/entry';
import { patchMethod } from '../util/patches';
import { contextScope, currentPool } from '../runtime/scope';
import { now } from '../runtime/clock';
import { errorInput } from '../runtime/errors';
import { fetchScope } from './fetchScope';
import { undiciRequestHeaders } from './headers';

type Dispatch = (opts: DispatchOptions, handler: Handler) => unknown;
type Interceptor = (dispatch: Dispatch) => Dispatch;
type InterceptorFactory = (...args: unknown[]) => Interceptor;

interface DispatchOptions {
  origin?: string | URL;
  path?: string;
  method?: string;
  headers?: unknown;
}

/** undici 7's handler interface, as `Dispatcher.compose` hands it to an interceptor (WrapHandler.wrap). */
interface Handler {
  onRequestStart?: (controller: unknown, context: unknown) => void;
  onRequestUpgrade?: (...args: unknown[]) => void;
  onResponseStart?: (controller: unknown, statusCode: number, headers: Record<string, string | string[]>, statusMessage?: string) => void;
  onResponseData?: (controller: unknown, chunk: Buffer) => void;
  onResponseEnd?: (controller: unknown, trailers: unknown) => void;
  onResponseError?: (controller: unknown, error: unknown) => void;
}

const FORWARDED = ['onRequestStart', 'onRequestUpgrade', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError'] as const;

const WHY_RETRY =
  "undici's retry interceptor dispatches each retry from a timer of its RetryHandler, where no app frame is on the stack and the async context is the socket's, not the app call's (https://github.com/nodejs/undici/blob/v7.16.0/lib/handler/retry-handler.js)";
const WHY_CACHE =
  "undici's cache interceptor answers a hit from its store without dispatching a request, so no diagnostics channel reports the call (https://github.com/nodejs/undici/blob/v7.16.0/lib/interceptor/cache.js, sendCachedValue)";

/**
 * undici's interceptors (`dispatcher.compose(interceptors.retry(), interceptors.cache())`, undici 7): the
 * factories are wrapped so that a retry carries the app's context and line, and a response served from the cache
 * is a row (`cache: 'hit'`, no timing). What the interceptors do is unchanged; requests that reach the network are
 * recorded by the undici lens as before.
 */
export class UndiciInterceptorInstrumentation extends InstrumentationBase {
  constructor(
    private readonly recorder: Recorder,
    private readonly maxBodyBytes: number,
    private readonly probeLogger: Logger,
  ) {
    super('probe-undici-interceptors', '0.1.0', {});
  }

  protected init() {
    const undo: Array<() => void> = [];
    return new InstrumentationNodeModuleDefinition(
      'undici',
      ['>=7'],
      (exports: { interceptors?: Record<string, InterceptorFactory>; default?: { interceptors?: Record<string, InterceptorFactory> } }) => {
        try {
          const interceptors = exports.interceptors ?? exports.default?.interceptors;
          if (interceptors) this.hook(interceptors, undo);
        } catch (error) {
          this.probeLogger.warnOnce('undici-interceptors', 'could not hook undici interceptors', error);
        }
        return exports;
      },
      () => {
        while (undo.length > 0) undo.pop()!();
      },
    );
  }

  private hook(interceptors: Record<string, InterceptorFactory>, undo: Array<() => void>): void {
    const retry = patchMethod(interceptors, 'retry', 'undici interceptors.retry', WHY_RETRY, (factory) => wrapFactory(factory, retrying));
    if (retry) undo.push(retry);
    const cache = patchMethod(interceptors, 'cache', 'undici interceptors.cache', WHY_CACHE, (factory) =>
      wrapFactory(factory, (interceptor) => caching(interceptor, this.recorder, this.maxBodyBytes, this.probeLogger)),
    );
    if (cache) undo.push(cache);
  }
}

/** The factory as the app calls it; the interceptor it makes goes through `wrap` (a failure leaves it as it is). */
function wrapFactory(factory: InterceptorFactory, wrap: (interceptor: Interceptor) => Interceptor): InterceptorFactory {
  return function (this: unknown, ...args: unknown[]) {
    const interceptor = factory.apply(this, args);
    if (typeof interceptor !== 'function') return interceptor;
    try {
      return wrap(interceptor);
    } catch {
      return interceptor;
    }
  };
}

/**
 * The retry interceptor with the app's call remembered: the first dispatch runs as a library entry (the app's
 * stack is taken there) and keeps its OTel context; each retry reaches the same `dispatch` with the same
 * RetryHandler, and is run in that context, outside any fetch call (a retry is a request of its own: one row,
 * with the origin of the call that started it, in the unit that made it).
 */
function retrying(interceptor: Interceptor): Interceptor {
  return (dispatch) => {
    const started = new WeakMap<object, Context>();
    const rememberingDispatch: Dispatch = function (this: unknown, opts, handler) {
      const plain = () => dispatch.call(this, opts, handler);
      const first = started.get(handler);
      if (first) return guarded((run) => context.with(first, () => fetchScope.run(undefined as unknown as FetchCall, run)), plain);
      return guarded((run) => {
        // Inside an app's fetch the app's line is where it called fetch (Node's own fetch dispatches after awaits
        // of its own, with no app frame left to take here).
        const group = fetchScope.getStore();
        const stack = group ? group.callSites() : null;
        return enterLibrary(
          () => {
            if (handler && typeof handler === 'object') started.set(handler, context.active());
            return run();
          },
          rememberingDispatch,
          stack,
        );
      }, plain);
    };
    return interceptor(rememberingDispatch);
  };
}

/**
 * Runs `plain` through `around`; should Probe's part fail before `plain` ran, `plain` runs alone. What `plain`
 * throws (undici's own errors) reaches the caller as it is.
 */
function guarded<R>(around: (run: () => R) => R, plain: () => R): R {
  let ran = false;
  try {
    return around(() => {
      ran = true;
      return plain();
    });
  } catch (error) {
    if (ran) throw error;
    return plain();
  }
}

/** What one app call through the cache interceptor is, until it is answered. */
interface CacheCall {
  forwarded: boolean;
}

/** In the OTel context (see runtime/scope): an async store answers from a promise continuation of its `get`. */
const cacheCalls = contextScope<CacheCall>('probe.undici.cache');

/**
 * The cache interceptor with its hits recorded: its `dispatch` (the network) is watched, and a response that
 * starts while the call was never forwarded came from the store. A revalidated entry (a conditional request
 * answered 304) is the network row the undici lens records; a stale entry served while it revalidates in the
 * background is a hit and, later, that row.
 */
function caching(interceptor: Interceptor, recorder: Recorder, maxBodyBytes: number, logger: Logger): Interceptor {
  return (dispatch) => {
    const watchedDispatch: Dispatch = function (this: unknown, opts, handler) {
      const call = cacheCalls.getStore();
      if (call) call.forwarded = true;
      return dispatch.call(this, opts, handler);
    };
    const cached = interceptor(watchedDispatch);
    const cachingDispatch: Dispatch = function (this: unknown, opts, handler) {
      let watched: Handler = handler;
      let call: CacheCall | undefined;
      try {
        if (handler && typeof handler.onRequestStart === 'function') {
          call = { forwarded: false };
          watched = watchHits(handler, opts, call, recorder, maxBodyBytes, logger);
        }
      } catch (error) {
        logger.warnOnce('undici-cache', 'could not watch an undici cache call', error);
      }
      const plain = () => cached.call(this, opts, handler);
      if (!call) return plain();
      return guarded(
        (run) => cacheCalls.run(call, () => enterLibrary(run, cachingDispatch)),
        () => cached.call(this, opts, watched),
      );
    };
    return cachingDispatch;
  };
}

/**
 * A handler that forwards every callback to the app's, and records the response as a cache hit when it starts
 * without the call having been forwarded to the network. The record joins the app's `fetch` call when there is
 * one (one row per app call), else it is a row of its own in the unit that made the call.
 */
function watchHits(handler: Handler, opts: DispatchOptions, call: CacheCall, recorder: Recorder, maxBodyBytes: number, logger: Logger): Handler {
  const start = now();
  const unit = recorder.activeUnit();
  const entry = currentEntry();
  const group = fetchScope.getStore();
  let record: CallRecord | null = null;
  const watched: Handler = {};
  for (const name of FORWARDED) {
    const method = handler[name];
    if (typeof method === 'function') (watched as Record<string, unknown>)[name] = (...args: unknown[]) => (method as Function).apply(handler, args);
  }
  const observe = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      logger.warnOnce('undici-cache-hit', 'could not record an undici cache hit', error);
    }
  };
  watched.onResponseStart = (controller, statusCode, headers, statusMessage) => {
    observe(() => {
      if (call.forwarded || !unit.sampled) return;
      const joins = group && !group.settled && !group.spanId;
      const spanId = randomBytes(8).toString('hex');
      if (joins) {
        record = group;
        record.identify(spanId);
      } else {
        // No stack of its own: the answer comes after an async hop; the entry taken at dispatch names the line.
        record = recorder.beginCall(unit, {
          spanId,
          start,
          entry: entry ?? currentEntry(),
          stack: null,
          method: String(opts.method ?? 'GET').toUpperCase(),
          url: `${String(opts.origin ?? '').replace(/\/$/, '')}${opts.path ?? ''}`,
          requestHeaders: requestHeaders(opts.headers),
        });
      }
      record.markCacheHit();
      record.markHeaders(statusCode, responseHeaders(headers));
    });
    return handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  };
  watched.onResponseData = (controller, chunk) => {
    if (record) observe(() => record!.responseTap().add(chunk));
    return handler.onResponseData?.(controller, chunk);
  };
  watched.onResponseEnd = (controller, trailers) => {
    if (record) observe(() => record!.finish());
    return handler.onResponseEnd?.(controller, trailers);
  };
  watched.onResponseError = (controller, error) => {
    if (record) observe(() => record!.fail(errorInput(error)));
    return handler.onResponseError?.(controller, error);
  };
  return watched;
}

/** The request headers as the app passed them to undici: an object, or a flat [name, value, …] array. */
function requestHeaders(headers: unknown): Record<string, string> {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return undiciRequestHeaders(headers);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** The response headers the cache interceptor hands on: an object of lower-case names (plus its `age`). */
function responseHeaders(headers: Record<string, string | string[]> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  return out;
}

/** undici 7's interceptors (cache hits as rows, retries with the app's context and line) as a lens. */
export const undiciInterceptorsLens: LensFactory = ({ config, recorder, logger }) =>
  config.http
    ? {
        name: 'undici interceptors',
        scopes: [],
        instrumentations: [new UndiciInterceptorInstrumentation(recorder, config.http.max_body_bytes, logger)],
        joins: [],
        enable: () => () => {},
      }
    : null;
