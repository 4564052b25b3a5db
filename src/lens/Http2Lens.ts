import diagnostics from 'node:diagnostics_channel';
import { keepChannel } from '../util/keptChannels';
import { randomBytes } from 'node:crypto';
import { context, trace } from '@opentelemetry/api';
import type { CallRecord } from '../runtime/CallRecord';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import type { LensFactory } from './Lens';
import { errorInput } from '../runtime/errors';
import { patchMethod } from '../util/patches';
import { claimProxiedSocket, installSocketWatch } from '../runtime/sockets';
import { headerOf, isTelemetryTraffic } from './telemetry';
import { grpcCallContext } from './grpcCallContext';
import { onUndiciChannel } from './undiciChannels';

type Headers = Record<string, string | string[] | number | undefined>;
type Emit = (event: string | symbol, ...args: unknown[]) => boolean;

/** What the lens reads of a ClientHttp2Stream and its session. */
interface Stream {
  session?: Session;
  sentHeaders?: Headers;
  emit: Emit;
  push(chunk: unknown, encoding?: BufferEncoding): boolean;
  write(...args: unknown[]): boolean;
  end(...args: unknown[]): unknown;
}
interface Session {
  socket?: { remoteAddress?: string; remotePort?: number };
  request(...args: unknown[]): Stream;
}

/**
 * Node publishes every client stream on `http2.client.stream.created` from 22.15 and 23.11 (nodejs/node#58080):
 * there the lens subscribes and patches nothing. Before, `ClientHttp2Session.prototype.request` is the one place
 * every stream starts; the class is not exported, so it is reached from the first session `http2.connect` makes.
 */
const HAS_CHANNEL = ((major, minor) => major > 23 || (major === 23 && minor >= 11) || (major === 22 && minor >= 15))(
  ...(process.versions.node.split('.').map(Number) as [number, number]),
);
const WHY =
  'node:http2 has no OpenTelemetry instrumentation, and Node before 22.15 publishes no channel for client streams: the session prototype request is where every stream starts (https://github.com/nodejs/node/blob/v20.x/lib/internal/http2/core.js)';
const SCHEMES: Record<string, string> = { http: 'http', https: 'https' };

/**
 * node:http2 client streams (`http2.connect(...).request(...)`: gRPC-js, got's `http2: true`): one row per
 * stream, with the session's connection phases on its first stream. Nothing is listened to on the stream: its
 * `emit`, `push`, `write` and `end` are observed on the instance, as the node:http lens does, so the app's
 * error handling is unchanged.
 */
export const http2Lens: LensFactory = ({ config, recorder, logger }) => {
  if (!config.http) return null;
  const lens = new Http2Lens(recorder, logger);
  return { name: 'http2', scopes: [], instrumentations: [], joins: [], enable: () => lens.enable() };
};

export class Http2Lens {
  /** Sessions whose first stream was seen: that stream takes the connection's DNS, TCP and TLS phases. */
  private readonly sessions = new WeakSet<object>();
  /**
   * Set while undici (`allowH2`) opens a stream for a request the undici lens records already: undici publishes
   * `undici:client:sendHeaders` just before its `session.request()` (lib/dispatcher/client-h2.js, writeH2).
   */
  private undiciOpening = false;

  constructor(
    private readonly recorder: Recorder,
    private readonly logger: Logger,
  ) {}

  enable(): () => void {
    installSocketWatch();
    const onUndici = (message: unknown) => {
      if ((message as { socket?: { alpnProtocol?: unknown } } | undefined)?.socket?.alpnProtocol !== 'h2') return;
      this.undiciOpening = true;
      queueMicrotask(() => (this.undiciOpening = false));
    };
    const unsubscribe = onUndiciChannel('undici:client:sendHeaders', onUndici);
    if (HAS_CHANNEL) {
      const onCreated = (message: unknown) => this.created((message as { stream?: Stream } | undefined)?.stream);
      keepChannel('http2.client.stream.created');
      diagnostics.subscribe('http2.client.stream.created', onCreated);
      return () => {
        unsubscribe();
        diagnostics.unsubscribe('http2.client.stream.created', onCreated);
      };
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only on Node versions with no channel
    const http2 = require('node:http2') as { connect(...args: unknown[]): Session };
    const created = (stream: Stream | undefined) => this.created(stream);
    let prototypePatched = false;
    const undo = patchMethod(
      http2,
      'connect',
      'node:http2.connect',
      WHY,
      (connect) =>
        function (this: unknown) {
          const session = connect.apply(this, arguments as unknown as unknown[]);
          if (!prototypePatched && session && typeof session === 'object') {
            prototypePatched = true;
            try {
              const proto = Object.getPrototypeOf(session) as Session;
              patchMethod(
                proto,
                'request',
                'ClientHttp2Session.prototype.request',
                WHY,
                (request) =>
                  function (this: Session) {
                    const stream = request.apply(this, arguments as unknown as unknown[]);
                    created(stream);
                    return stream;
                  },
              );
            } catch {
              // the session is the app's either way
            }
          }
          return session;
        },
    );
    return () => {
      unsubscribe();
      undo?.();
    };
  }

  private created(stream: Stream | undefined): void {
    if (this.undiciOpening) {
      this.undiciOpening = false;
      return;
    }
    try {
      if (!stream || typeof stream !== 'object') return;
      // A gRPC call's stream, started from its channel's events: in the context of the call that asked for it.
      const call = grpcCallContext(stream.sentHeaders);
      if (call) context.with(call, () => this.start(stream));
      else this.start(stream);
    } catch (error) {
      this.logger.warnOnce('http2-start', 'could not record an http2 stream', error);
    }
  }

  private start(stream: Stream): void {
    const unit = this.recorder.activeUnit();
    // A unit left out by sampling records nothing (asked first: nothing else runs).
    if (!unit.sampled) return;
    const sent = stream.sentHeaders ?? {};
    const scheme = SCHEMES[String(sent[':scheme'])] ?? 'https';
    const url = `${scheme}://${String(sent[':authority'] ?? 'localhost')}${String(sent[':path'] ?? '/')}`;
    const requestHeaders = plainHeaders(sent);
    if (isTelemetryTraffic(url, headerOf(requestHeaders))) return;
    const parent = trace.getActiveSpan()?.spanContext().spanId ?? null;
    const record = this.recorder.beginCall(unit, {
      spanId: randomBytes(8).toString('hex'),
      parentSpanId: parent,
      method: String(sent[':method'] ?? 'GET'),
      url,
      requestHeaders,
      clientDecodes: false,
    });
    const session = stream.session;
    const first = Boolean(session) && !this.sessions.has(session!);
    if (first) this.sessions.add(session!);
    observe(record, stream, first);
  }
}

/** Request or response headers without HTTP/2's pseudo-headers (`:path`, `:status`…), which the row has as fields. */
function plainHeaders(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (!name.startsWith(':') && value !== undefined) out[name] = typeof value === 'number' ? String(value) : value;
  }
  return out;
}

/** The connection is known once the response starts: the session's socket, its phases for its first stream. */
function useSession(record: CallRecord, session: Session | undefined, first: boolean): void {
  const socket = session?.socket;
  let remote: string | undefined;
  try {
    if (socket?.remoteAddress) remote = `${socket.remoteAddress}:${socket.remotePort}`;
  } catch {
    // a session whose socket is gone has no address to read
  }
  record.connectedTo(remote, 'HTTP/2', socket && first ? claimProxiedSocket(socket) : undefined);
}

function observe(record: CallRecord, stream: Stream, first: boolean): void {
  const write = stream.write;
  stream.write = function (this: Stream, chunk: unknown, encoding?: unknown) {
    tapChunk(record, chunk, encoding);
    return write.apply(this, arguments as unknown as unknown[]);
  };
  const end = stream.end;
  stream.end = function (this: Stream, chunk?: unknown, encoding?: unknown) {
    if (typeof chunk !== 'function') tapChunk(record, chunk, encoding);
    return end.apply(this, arguments as unknown as unknown[]);
  };
  const push = stream.push;
  stream.push = function (this: Stream, chunk: unknown, encoding?: BufferEncoding) {
    try {
      if (chunk === null) record.finish();
      else if (record.status !== null) record.responseTap().add(chunk, encoding);
    } catch {
      // never in the way of the stream
    }
    return push.call(this, chunk, encoding);
  };
  const emit = stream.emit;
  stream.emit = function (this: Stream, event: string | symbol, first_?: unknown) {
    try {
      observeEvent(record, this, event, first_, first);
    } catch {
      // observing never changes delivery
    }
    return emit.apply(this, arguments as unknown as Parameters<Emit>);
  } as Emit;
}

/** `arg` is the event's first argument (the response headers, the error). */
function observeEvent(record: CallRecord, stream: Stream, event: string | symbol, arg: unknown, first: boolean): void {
  switch (event) {
    case 'finish':
      record.markSent();
      break;
    case 'response': {
      const headers = (arg ?? {}) as Headers;
      useSession(record, stream.session, first);
      record.markHeaders(Number(headers[':status'] ?? 0), plainHeaders(headers));
      record.responseTap();
      break;
    }
    case 'trailers':
      // gRPC's status comes here (`grpc-status`), after the messages.
      record.markTrailers(plainHeaders((arg ?? {}) as Headers));
      break;
    case 'error':
      if (record.end === null) {
        record.failWithoutResponse(errorInput(arg));
      }
      break;
    case 'close':
      // A stream closed with no response (reset, session gone) ends here; one with a response ended with its body.
      if (record.end === null) record.finish();
      break;
  }
}

function tapChunk(record: CallRecord, chunk: unknown, encoding: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
  try {
    record.requestTap().add(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined);
  } catch {
    // a chunk type we cannot size is the client's business
  }
}
