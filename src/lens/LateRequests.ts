import http from 'node:http';
import { SpanKind, context, trace, type Span } from '@opentelemetry/api';
import type { Recorder } from '../runtime/Recorder';
import { currentRuntime } from '../runtime/state';
import type { IncomingRequests } from './IncomingRequests';
import { listenHidden } from '../runtime/responseListeners';

/** Runs `handle` as the request's unit: one opened for it when node:http emitted it before Probe started. */
export type OpenLate = <T>(request: unknown, response: unknown, handle: () => T) => T;

/**
 * Requests node:http emitted before Probe started, opened as request units when a framework's handler reaches
 * them afterwards. `start()` from Next.js's instrumentation.ts runs inside Next's `prepare()`, which Next 14 and
 * 15 fire without awaiting when their server is made and await inside the first request's `handleRequest`
 * (https://github.com/vercel/next.js/blob/v15.5.0/packages/next/src/server/base-server.ts handleRequest,
 * next-server.ts prepareImpl): a request that arrives while register() runs was emitted with no server span, so
 * its calls would land in the process's capture. Its unit is opened around the framework's handler (which runs
 * after prepare()), with a server span of Probe's ended when the response closes, as instrumentation-http's is.
 * A request that has a unit already (every request emitted after start) is handled as it is.
 */
export function lateRequests(recorder: Recorder, requests: IncomingRequests): OpenLate {
  return <T>(request: unknown, response: unknown, handle: () => T): T => {
    const span = openSpan(recorder, requests, request, response);
    return span ? context.with(trace.setSpan(context.active(), span), handle) : handle();
  };
}

/** The server span that opens a late request's unit, or null when the request has one (or is not node:http's). */
function openSpan(recorder: Recorder, requests: IncomingRequests, request: unknown, response: unknown): Span | null {
  try {
    if (!(request instanceof http.IncomingMessage) || !(response instanceof http.ServerResponse)) return null;
    const runtime = currentRuntime();
    // A request with a unit (node:http emitted it after start), or run inside one already, is left as it is.
    if (!runtime || recorder.hasRequestUnit(request) || recorder.activeUnit().type === 'request' || response.writableEnded) return null;
    const method = (request.method ?? 'GET').toUpperCase();
    // The span opens the unit for this request (see Recorder.onStart), then the requests source fills it in.
    recorder.noteIncoming(request);
    const span = runtime.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } });
    requests.requestHook(span, request);
    // 'close' comes once the response is sent or the connection is gone, as instrumentation-http ends its span.
    let ended = false;
    // Off the response's listener list (see listenHidden), as the server span instrumentation-http makes.
    listenHidden(response, 'close', () => {
      if (ended) return;
      ended = true;
      try {
        span.setAttribute('http.response.status_code', response.statusCode);
        span.end();
      } catch {
        // recording never disturbs the app
      }
    });
    return span;
  } catch {
    return null;
  }
}
