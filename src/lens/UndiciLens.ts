import type { Span } from '@opentelemetry/api';
import type { Span as SdkSpan } from '@opentelemetry/sdk-trace-base';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { JoinEntry } from '../runtime/join/Joiner';
import type { LensFactory } from './Lens';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import type { CallRecord } from '../runtime/CallRecord';
import { errorInput } from '../runtime/errors';
import { fetchScope } from './fetchScope';
import { NONE_KEPT, undiciRequestHeaders, undiciResponseHeaders } from './headers';
import { isTelemetryTraffic } from './telemetry';
import { decodedCount } from './decodedSize';
import { UndiciQueue, UndiciQueueInstrumentation } from './undiciQueue';
import { holdUndiciSubscriptions, onUndiciChannel } from './undiciChannels';
import { observeRequest, recordOf, RECORD, type TrackedRequest } from './undiciTaps';
import { connectionOf, takeTurn } from '../runtime/connections';

const SCOPE = '@opentelemetry/instrumentation-undici';

/**
 * undici's requests (global fetch's hops, the `undici` package's request/stream/fetch): instrumentation-undici
 * makes the span in Probe's own mode; beside an app's setup the joiner drives the lens from `undici:request:create`.
 */
export const undiciLens: LensFactory = ({ config, recorder, logger, joiner }) => {
  if (!config.http) return null;
  const lens = new UndiciLens(recorder, logger);
  const queue = new UndiciQueue(logger);
  const instrumentation = new UndiciInstrumentation({
    // Each undici request is published once on `undici:request:create`: this hook runs while no app setup is
    // present, the join entry below once one is, and the lens itself skips a request it recorded already.
    requestHook: lens.requestHook as never,
    ignoreRequestHook: () => joiner.appPresent,
  });
  holdUndiciSubscriptions(instrumentation);
  return {
    name: 'undici',
    scopes: [SCOPE],
    instrumentations: [instrumentation, new UndiciQueueInstrumentation(queue)],
    joins: [{ channel: 'undici:request:create', scope: SCOPE, hook: lens.requestHook as JoinEntry['hook'] }],
    enable() {
      lens.enable();
      queue.enable();
      return () => {
        queue.disable();
        lens.disable();
      };
    },
  };
};

/**
 * The undici side of the lens. instrumentation-undici makes the span and calls `requestHook` inside
 * `undici:request:create`; Probe starts the call record there and follows the same request object through
 * undici's other diagnostics channels for the connection, timing and body bytes. The record rides on the
 * request itself (see undiciTaps): no weak map entry, nor closures, per request.
 */
export class UndiciLens {
  private readonly subscriptions: Array<() => void> = [];

  constructor(
    private readonly recorder: Recorder,
    private readonly logger: Logger,
  ) {}

  readonly requestHook = (span: Span, request: TrackedRequest): void => {
    try {
      this.start(span as unknown as SdkSpan, request);
    } catch (error) {
      this.logger.warnOnce('undici-start', 'could not record an undici call', error);
    }
  };

  private start(span: SdkSpan, request: TrackedRequest): void {
    if (!request || request[RECORD]) return;
    const { spanId } = span.spanContext();
    const group = fetchScope.getStore();
    const joins = group && !group.settled;
    // A unit left out by sampling records nothing: no record, no stack, no taps (asked before anything is read).
    const unit = joins ? null : this.recorder.unitOfSpan(spanId);
    if (unit && !unit.sampled) return;
    // A hop of a fetch call only counted (past its unit's row cap: a row never) copies no headers.
    const headers = joins && group.counted ? NONE_KEPT : undiciRequestHeaders(request.headers);
    // A fetch the wrapper already let through as the app's is not asked again (its hops carry the same marks).
    if (!group && isTelemetryTraffic(`${request.origin}${request.path}`, (name) => headers[name])) return;
    let record: CallRecord;
    if (joins) {
      record = group;
      group.dispatched(spanId, span.parentSpanContext?.spanId ?? null, request.method, headers);
    } else {
      const url = `${request.origin}${request.path}`;
      record = this.recorder.beginCall(unit!, {
        spanId,
        parentSpanId: span.parentSpanContext?.spanId ?? null,
        method: request.method,
        url,
        requestHeaders: headers,
      });
    }
    request[RECORD] = record;
    observeRequest(request);
  }

  private on(name: string, handler: (message: Record<string, unknown>) => void): void {
    const safe = (message: unknown) => {
      try {
        handler(message as Record<string, unknown>);
      } catch (error) {
        this.logger.warnOnce(`undici-${name}`, `lens failed on ${name}`, error);
      }
    };
    this.subscriptions.push(onUndiciChannel(name, safe));
  }

  enable(): void {
    this.on('undici:client:sendHeaders', ({ request, socket, headers }) => {
      const record = recordOf(request);
      if (!record) return;
      const traceparent = sentTraceparent(headers);
      if (traceparent) record.noteSentTraceparent(traceparent);
      const s = socket as { remoteAddress?: string; remotePort?: number; alpnProtocol?: string | false } | undefined;
      // undici publishes sendHeaders over h2 too, with the session's TLS socket.
      const protocol = s?.alpnProtocol === 'h2' ? 'HTTP/2' : 'HTTP/1.1';
      record.useSocket(socket as object, s?.remoteAddress ? `${s.remoteAddress}:${s.remotePort}` : undefined, protocol);
      // HTTP/1.1 only: HTTP/2 multiplexes streams on one connection, where the order of requests says nothing.
      if (protocol === 'HTTP/1.1' && socket) record.noteConnection(connectionOf(socket, takeTurn(socket as object)));
      record.markSent();
    });
    this.on('undici:request:bodySent', ({ request }) => recordOf(request)?.markSent());
    this.on('undici:request:headers', ({ request, response }) => {
      const record = recordOf(request);
      if (!record) return;
      const res = response as { statusCode: number; headers: unknown };
      const headers = undiciResponseHeaders(res.headers);
      record.markHeaders(res.statusCode, headers);
      const encoding = headers['content-encoding'];
      if (record.clientDecodes && encoding) record.responseTap().decodeWith(decodedCount(encoding, record.maxBodyBytes));
    });
    this.on('undici:request:trailers', ({ request, trailers }) => {
      const record = recordOf(request);
      if (!record) return;
      // HTTP/2 trailers (gRPC's status over undici's h2).
      record.markTrailers(undiciResponseHeaders(trailers));
      record.finish();
    });
    this.on('undici:request:error', ({ request, error }) => {
      const record = recordOf(request);
      if (record && record.end === null) record.fail(errorInput(error));
    });
  }

  disable(): void {
    for (const unsubscribe of this.subscriptions) unsubscribe();
    this.subscriptions.length = 0;
  }
}

/** The `traceparent` in the header block undici wrote to the socket (`name: value\r\n` lines), if any. */
function sentTraceparent(headers: unknown): string | null {
  if (typeof headers !== 'string' || !headers.includes('traceparent')) return null;
  return /(?:^|\n)traceparent:[ \t]*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? null;
}
