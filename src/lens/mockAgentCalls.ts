import { randomBytes } from 'node:crypto';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import { BodyTap } from '../runtime/BodyTap';
import { errorInput } from '../runtime/errors';
import { FETCH_STACK_LIMIT } from '../origin/origin';
import { patchMethod } from '../util/patches';
import { FetchCall } from './FetchCall';
import { fetchScope } from './fetchScope';
import { undiciRequestHeaders, undiciResponseHeaders } from './headers';
import { isTelemetryTraffic } from './telemetry';

const WHY =
  "undici's MockAgent answers an intercepted call inside its dispatch, before any Client makes a request: `undici:request:create` is never published, so request(), stream() and a dispatcher's own request() answered by it reach no channel; fetch() is recorded by its wrapper (https://github.com/nodejs/undici/blob/v7.16.0/lib/mock/mock-utils.js)";

type Handler = Record<string, unknown>;
type Dispatch = (this: unknown, opts: DispatchOptions, handler: Handler) => unknown;
interface DispatchOptions {
  origin?: unknown;
  path?: string;
  method?: string;
  headers?: unknown;
  body?: unknown;
}
type UndiciExports = { MockAgent?: { prototype?: { dispatch?: Dispatch } }; default?: UndiciExports };

/**
 * Calls a `MockAgent` dispatches outside a `fetch()` (undici's `request()`, `stream()`, `pipeline()`,
 * `agent.request()`): one row each, `fake: true` when the agent answered it. The dispatch runs in the call's
 * fetch scope, so a call the agent lets through to the network (net connect enabled) joins the row as its real
 * exchange, as a fetch's does.
 */
export class MockAgentInstrumentation extends InstrumentationBase {
  constructor(
    private readonly recorder: Recorder,
    private readonly probeLogger: Logger,
  ) {
    super('probe-undici-mock-agent', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition('undici', ['>=5.0.0'], (exports: UndiciExports) => {
      try {
        const proto = (exports?.MockAgent ?? exports?.default?.MockAgent)?.prototype;
        if (proto && !hooked.has(proto)) {
          hooked.add(proto);
          patchMethod(proto, 'dispatch', 'undici MockAgent.prototype.dispatch', WHY, (original) =>
            recordingDispatch(original!, this.recorder, this.probeLogger),
          );
        }
      } catch (error) {
        this.probeLogger.warnOnce('undici-mock-agent', 'could not follow undici MockAgent', error);
      }
      return exports;
    });
  }
}

const hooked = new WeakSet<object>();

function recordingDispatch(original: Dispatch, recorder: Recorder, logger: Logger): Dispatch {
  return function dispatch(this: unknown, opts: DispatchOptions, handler: Handler) {
    const outer = fetchScope.getStore();
    // A fetch() (or an enclosing call) records it already.
    if ((outer && !outer.settled) || !opts || !handler || typeof handler !== 'object') return original.call(this, opts, handler);
    let record: FetchCall | null = null;
    try {
      record = startRecord(recorder, opts);
    } catch (error) {
      logger.warnOnce('mock-agent-start', 'could not record a MockAgent call', error);
    }
    if (!record) return original.call(this, opts, handler);
    const call = record;
    return fetchScope.run(call, () => original.call(this, opts, observed(handler, call, opts, logger)));
  };
}

function startRecord(recorder: Recorder, opts: DispatchOptions): FetchCall | null {
  const unit = recorder.activeUnit();
  if (!unit.sampled) return null;
  const origin = String(opts.origin ?? '').replace(/\/$/, '');
  const url = `${origin}${opts.path ?? '/'}`;
  if (!URL.canParse(url) || isTelemetryTraffic(url, () => undefined)) return null;
  const method = String(opts.method ?? 'GET').toUpperCase();
  return recorder.beginCall(unit, { method, url, stackLimit: FETCH_STACK_LIMIT, clientDecodes: false }, (max) => new FetchCall(max));
}

/**
 * The app's handler as the agent sees it: each response callback (undici's legacy `onHeaders`… and the
 * `onResponseStart`… of undici 7) is the original, called on the handler itself, after Probe notes what it got.
 */
function observed(handler: Handler, call: FetchCall, opts: DispatchOptions, logger: Logger): Handler {
  // Set once the agent answered (the call's own id is then Probe's): the body that follows is the fake's.
  let tap: BodyTap | null = null;
  const safely = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      logger.warnOnce('mock-agent-end', 'could not finish a MockAgent record', error);
    }
  };
  const headers = (status: unknown, raw: unknown) =>
    safely(() => {
      call.settled = true;
      // A real exchange: undici reported it, body included.
      if (call.spanId) return;
      call.markFake();
      call.identify(randomBytes(8).toString('hex'));
      call.setRequest(requestHeaders(opts.headers));
      const body = opts.body;
      if (typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Uint8Array) {
        const request = call.requestTap();
        request.add(body);
        request.end();
      }
      call.markHeaders(Number(status), raw && typeof raw === 'object' && !Array.isArray(raw) ? stringValues(raw) : undiciResponseHeaders(raw));
      tap = new BodyTap(call.maxBodyBytes);
    });
  const data = (chunk: unknown) => safely(() => tap?.add(chunk));
  const complete = () =>
    safely(() => {
      call.settled = true;
      if (!tap) return;
      call.setResponseBody(tap);
      call.finish();
    });
  const failed = (error: unknown) =>
    safely(() => {
      call.settled = true;
      if (call.spanId && !tap) return;
      if (!call.spanId) call.identify(randomBytes(8).toString('hex'));
      call.failWithoutResponse(errorInput(error));
    });
  const notes: Record<string, (args: unknown[]) => void> = {
    onHeaders: (args) => headers(args[0], args[1]),
    onData: (args) => data(args[0]),
    onComplete: () => complete(),
    onError: (args) => failed(args[0]),
    onResponseStart: (args) => headers(args[1], args[2]),
    onResponseData: (args) => data(args[1]),
    onResponseEnd: () => complete(),
    onResponseError: (args) => failed(args[1]),
  };
  return new Proxy(handler, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      const note = typeof key === 'string' && typeof value === 'function' ? notes[key] : undefined;
      if (!note) return value;
      return function (this: unknown, ...args: unknown[]) {
        note(args);
        return (value as (...a: unknown[]) => unknown).apply(this === receiver ? target : this, args);
      };
    },
  });
}

/** Request headers as `request()` takes them: an object, a flat array, or undici 6's string. */
function requestHeaders(headers: unknown): Record<string, string> {
  if (headers && typeof headers === 'object' && !Array.isArray(headers)) return stringValues(headers as Record<string, unknown>);
  return undiciRequestHeaders(headers);
}

function stringValues(headers: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value != null) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}
