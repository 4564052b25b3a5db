import http from 'node:http';
import type { Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { Span as SdkSpan } from '@opentelemetry/sdk-trace-base';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import type { CallRecord } from '../runtime/CallRecord';
import { capturingOrigins } from '../origin/origin';
import { entryPort, takeEntryStack } from './httpEntry';
import { errorInput } from '../runtime/errors';
import { installSocketWatch, watchSocket } from '../runtime/sockets';
import { connectionOf, takeTurn } from '../runtime/connections';
import { appInstrumentsHttp, neverUnwrapOthers } from '../runtime/join/appHttp';
import { adoptAppHttpInstrumentation } from '../runtime/join/adopt';
import type { JoinEntry } from '../runtime/join/Joiner';
import type { LensFactory } from './Lens';
import type { IncomingRequests } from './IncomingRequests';
import { wrapHttpEntries } from './httpEntry';
import { hideServerListeners } from './serverListeners';
import { passCallerArguments } from './callerArguments';
import { isTelemetryTraffic } from './telemetry';
import { decodedCount, decodingClientAgent, decodingClientOnStack } from './decodedSize';

type Emit = (event: string | symbol, ...args: unknown[]) => boolean;

const SCOPE = '@opentelemetry/instrumentation-http';
const MODULES = ['http', 'https', 'node:http', 'node:https'];

/**
 * node:http and node:https clients, through instrumentation-http (which also makes the incoming requests' server
 * spans: their hooks go to the requests source). Beside an app's setup that instruments node:http, the app's
 * instance makes the spans and Probe's is not made; the lens is driven from the channel and the entry wrappers.
 */
export function httpLens(requests: IncomingRequests): LensFactory {
  return ({ config, recorder, logger, joiner }) => {
    if (!config.http) return null;
    const lens = new HttpLens(recorder, logger, requests);
    installSocketWatch();
    // An app setup that ran first has patched node:http when it is loaded: load it now, before deciding.
    for (const name of MODULES) require(name);
    const hooks = { requestHook: joiner.once(lens.requestHook as never) as never, responseHook: requests.responseHook as never };
    const join: JoinEntry = { channel: 'http.client.request.start', scope: SCOPE, hook: lens.requestHook as JoinEntry['hook'], underActiveClient: true };
    let instrumentation: HttpInstrumentation | undefined;
    if (!appInstrumentsHttp()) {
      // Under Probe's own configuration the instance traces no outgoing call (no span, listener or header of its
      // own): the lens records each request as it is made, under a span that never enters the context. Once it
      // adopts an app's configuration (see adopt), it makes the app's spans as upstream does.
      const untraced = () => true;
      const made = new HttpInstrumentation({ ...hooks, ignoreOutgoingRequestHook: untraced, enabled: false });
      instrumentation = made;
      neverUnwrapOthers(made);
      hideServerListeners(made, () => made.getConfig().ignoreOutgoingRequestHook === untraced);
      passCallerArguments(
        made,
        () => made.getConfig().ignoreOutgoingRequestHook === untraced,
        (request) => joiner.missed(join, request as object),
      );
      joiner.stepAsideForAppServerSpans(instrumentation);
    }
    return {
      name: 'http',
      scopes: [SCOPE],
      instrumentations: instrumentation ? [instrumentation] : [],
      joins: [join],
      enable() {
        if (instrumentation) adoptAppHttpInstrumentation(HttpInstrumentation, instrumentation, hooks, logger);
        // instrumentation-http patches on require: load the modules again now so ESM apps (which import them
        // later through the loader) get the patched exports (start() refreshes ESM named exports after every lens).
        for (const name of MODULES) require(name);
        return wrapHttpEntries([require('node:http'), require('node:https')], (request) => joiner.missed(join, request));
      },
    };
  };
}

/**
 * The node:http side of the lens, run from instrumentation-http's hooks. Outgoing requests are observed by
 * wrapping `emit`, `write`, `end` on the instance and `push` on the response: adding listeners (above all an
 * 'error' listener) would change what the app sees.
 */
export class HttpLens {
  constructor(
    private readonly recorder: Recorder,
    private readonly logger: Logger,
    private readonly requests: IncomingRequests,
  ) {}

  /** instrumentation-http's request hook: an outgoing ClientRequest is this lens's; an incoming request, the requests source's. */
  readonly requestHook = (span: Span, request: http.ClientRequest | http.IncomingMessage): void => {
    try {
      // Not `instanceof http.ClientRequest`: nock/msw replace that export with a Proxy that fails the check.
      if (request instanceof http.IncomingMessage) this.requests.requestHook(span, request);
      else this.outgoing(span as unknown as SdkSpan, request);
    } catch (error) {
      this.logger.warnOnce('http-start', 'could not record an http call', error);
    }
  };

  private outgoing(span: SdkSpan, request: http.ClientRequest): void {
    // Taken where the app called http.request/get when it came through Probe's wrapper (see httpEntry).
    const entry = takeEntryStack();
    const { spanId } = span.spanContext();
    const unit = this.recorder.unitOfSpan(spanId);
    // A unit left out by sampling records nothing: no record, no stack, no taps (asked first: nothing else runs).
    if (!unit.sampled) return;
    const url = targetUrl(request);
    if (isTelemetryTraffic(url, (name) => request.getHeader(name))) return;
    const record = this.recorder.beginCall(unit, {
      spanId,
      parentSpanId: span.parentSpanContext?.spanId ?? null,
      method: request.method,
      url,
      ...(entry !== undefined ? { stack: entry } : {}),
      // Now: the call sites are let go soon after the call starts, long before a response arrives.
      // With origins off, a stack taken only to tell an agent's own calls is too short to name the client.
      clientDecodes: (stack) => (stack && capturingOrigins() ? decodingClientOnStack(stack) : decodingClientAgent(request.getHeader('user-agent'))),
    });

    const socketPath = (request as { socketPath?: unknown }).socketPath;
    if (typeof socketPath === 'string' && socketPath) record.viaSocketPath(socketPath);

    // Headers can change until they are sent: copied once, as plain data, when the first write() or end()
    // has sent them (or the request fails or closes before either). A call only counted keeps none.
    record.setRequest(record.counted ? NONE_KEPT : UNSENT);
    const taps: Taps = {
      record,
      write: request.write as Method,
      end: request.end as Method,
      emit: request.emit as Emit,
      push: null,
      responseEmit: null,
      socket: null,
      turn: 0,
      interceptor: null,
    };
    Object.defineProperty(request, TAPS, { value: taps, configurable: true, writable: true });
    request.write = tappedWrite as typeof request.write;
    request.end = tappedEnd as typeof request.end;
    request.emit = tappedEmit as typeof request.emit;
  }
}

type Method = (...args: unknown[]) => unknown;

/**
 * What the shared observers below need of one request and its response: the record and the methods they stand in
 * front of, kept on the instance under a symbol (not enumerable). The observers are shared by every request: a
 * closure made per request and set on it was kept alive by V8's young-generation collections (with the request,
 * its record and everything they reach) until the next full collection, which tripled the scavenges' time in a
 * script's call loop. They pass `arguments` on as they came: no rest arrays per event and chunk, and the original
 * sees exactly the arguments the caller gave.
 */
interface Taps {
  record: CallRecord;
  write: Method;
  end: Method;
  emit: Emit;
  push: Method | null;
  responseEmit: Emit | null;
  /** The socket the request was given, until its response says the connection's address and protocol. */
  socket: import('node:net').Socket | null;
  /** The request's order on its socket (runtime/connections.ts), 0 until it has one. */
  turn: number;
  /** The request was given @mswjs/interceptors' socket (nock, msw): its answer is a fake's or a real server's. */
  interceptor: InterceptorSocket | null;
}

/**
 * @mswjs/interceptors' `MockHttpSocket` (nock 14, msw): `socketState` becomes `mock` when a fake answers and
 * `passthrough` when the request is let through (nock's `allowUnmocked`, msw's `bypass`), `originalSocket` then
 * the real connection it pipes (https://github.com/mswjs/interceptors/blob/main/src/interceptors/ClientRequest/MockHttpSocket.ts).
 */
interface InterceptorSocket {
  socketState?: string;
  originalSocket?: import('node:net').Socket;
}

/** The real connection behind an interceptor's socket the request was let through on; null when a fake answered. */
function passedThrough(socket: InterceptorSocket): import('node:net').Socket | null {
  return socket.socketState === 'passthrough' && socket.originalSocket ? socket.originalSocket : null;
}
const TAPS = Symbol('probe.http.taps');
type Tapped = { [TAPS]: Taps };

function tappedWrite(this: http.ClientRequest & Tapped, chunk: unknown, encoding?: unknown): unknown {
  const taps = this[TAPS];
  tapChunk(taps.record, chunk, encoding);
  const result = taps.write.apply(this, arguments as unknown as unknown[]);
  takeHeaders(taps.record, this);
  return result;
}

function tappedEnd(this: http.ClientRequest & Tapped, chunk?: unknown, encoding?: unknown): unknown {
  const taps = this[TAPS];
  if (typeof chunk !== 'function') tapChunk(taps.record, chunk, encoding);
  const result = taps.end.apply(this, arguments as unknown as unknown[]);
  takeHeaders(taps.record, this);
  return result;
}

function tappedEmit(this: http.ClientRequest & Tapped, event: string | symbol, first?: unknown): boolean {
  const taps = this[TAPS];
  try {
    if (event === 'error' || event === 'close') takeHeaders(taps.record, this);
    observeRequest(taps, event, first);
  } catch {
    // observing never changes delivery
  }
  return taps.emit.apply(this, arguments as unknown as Parameters<Emit>);
}

/** A request's headers before they are taken: shared, never written to. */
const UNSENT: CallRecord['requestHeaders'] = Object.freeze({});
/** The headers of a call that is only counted (past its unit's row cap): none are copied. */
const NONE_KEPT: CallRecord['requestHeaders'] = Object.freeze({});

function takeHeaders(record: CallRecord, request: http.ClientRequest): void {
  if (record.requestHeaders !== UNSENT) return;
  try {
    record.setRequest(request.getHeaders() as CallRecord['requestHeaders']);
  } catch {
    record.setRequest({}); // a request whose headers cannot be read keeps none
  }
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The URL's host and port: where the request really goes when its port is known (the call came through Probe's
 * entry wrapper), as a URL writes it (no default port, IPv6 in brackets); else the Host header, as sent. The
 * Host header stays in request_headers as it was.
 */
/**
 * The URL the call is for. A request to a forward proxy names its target whole in the request line (absolute form,
 * RFC 9112 §3.2.2: axios's `proxy` option, http-proxy-agent): that target is the call; the proxy only carries it.
 */
function targetUrl(request: http.ClientRequest): string {
  const { path } = request;
  if (ABSOLUTE_FORM.test(path) && URL.canParse(path)) return path;
  return `${request.protocol}//${authority(request)}${path}`;
}

/** A request target that starts with an http or https scheme (a bounded prefix: linear). */
const ABSOLUTE_FORM = /^https?:\/\//i;

function authority(request: http.ClientRequest): string {
  const port = entryPort((request as { agent?: unknown }).agent);
  if (port !== undefined && request.host) {
    const host = request.host.includes(':') && !request.host.startsWith('[') ? `[${request.host}]` : request.host;
    return port === DEFAULT_PORTS[request.protocol] ? host : `${host}:${port}`;
  }
  return String(request.getHeader('host') ?? request.host);
}

function tapChunk(record: CallRecord, chunk: unknown, encoding: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
  try {
    record.requestTap().add(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined);
  } catch {
    // a chunk type we cannot size is the client's business
  }
}

/** `first` is the event's first argument (the socket, the response, the error). */
function observeRequest(taps: Taps, event: string | symbol, first: unknown): void {
  const record = taps.record;
  switch (event) {
    case 'socket': {
      const socket = first as import('node:net').Socket;
      if (socket?.constructor?.name === 'MockHttpSocket') {
        // nock / msw answer through @mswjs/interceptors' socket, or let the request through it: told at the answer.
        taps.interceptor = socket as InterceptorSocket;
        return;
      }
      if (socket.connecting) watchSocket(socket);
      taps.socket = socket;
      // Its turn on the connection now: an agent hands a keep-alive socket to one request at a time, in order.
      taps.turn = takeTurn(socket);
      break;
    }
    case 'finish':
      record.markSent();
      break;
    case 'response': {
      const response = first as http.IncomingMessage;
      answered(taps, response);
      tapResponse(taps, response);
      const encoding = response.headers['content-encoding'];
      if (encoding && record.clientDecodes) record.responseTap().decodeWith(decodedCount(encoding, record.maxBodyBytes));
      break;
    }
    case 'upgrade': {
      // A WebSocket handshake (or any protocol switch): the 101 response is the call's answer, and the socket
      // now belongs to the new protocol, so the call ends here (no body, no 'close' while the socket lives).
      const response = first as http.IncomingMessage;
      answered(taps, response);
      record.finish();
      break;
    }
    case 'error':
      // An error the fake answered with (nock's replyWithError), not a real connection's.
      if (taps.interceptor && !passedThrough(taps.interceptor)) record.markFake();
      if (record.end === null) {
        record.failWithoutResponse(errorInput(first));
      }
      break;
    case 'close':
      if (record.status === null) record.finish();
      break;
  }
}

/** The response's status and headers, and the connection it came on. */
function answered(taps: Taps, response: http.IncomingMessage): void {
  const record = taps.record;
  if (taps.interceptor) {
    taps.socket = passedThrough(taps.interceptor);
    if (!taps.socket) record.markFake();
    taps.interceptor = null;
  }
  const socket = taps.socket;
  if (socket && !record.fake) {
    taps.socket = null;
    record.useSocket(socket, socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : undefined, `HTTP/${response.httpVersion}`);
    if (taps.turn) record.noteConnection(connectionOf(socket, taps.turn));
  }
  // A call only counted needs its headers for its outcome (a gRPC status) as it ends, never as a row: not copied.
  record.markHeaders(response.statusCode ?? 0, record.counted ? response.headers : { ...response.headers });
}

function tapResponse(taps: Taps, response: http.IncomingMessage): void {
  // Made now: the response tap exists before the first chunk, as the record's readers expect.
  taps.record.responseTap();
  taps.push = response.push as Method;
  taps.responseEmit = response.emit as Emit;
  Object.defineProperty(response, TAPS, { value: taps, configurable: true, writable: true });
  response.push = tappedPush as typeof response.push;
  response.emit = tappedResponseEmit as typeof response.emit;
}

function tappedPush(this: http.IncomingMessage & Tapped, chunk: unknown, encoding?: BufferEncoding): unknown {
  const taps = this[TAPS];
  try {
    if (chunk === null) taps.record.finish();
    else taps.record.responseTap().add(chunk as never, encoding);
  } catch {
    // never in the way of the stream
  }
  return taps.push!.call(this, chunk, encoding);
}

function tappedResponseEmit(this: http.IncomingMessage & Tapped, event: string | symbol, first?: unknown): boolean {
  const taps = this[TAPS];
  const record = taps.record;
  if ((event === 'aborted' || event === 'error') && record.end === null) {
    try {
      record.fail(errorInput(first ?? new Error('response aborted')));
    } catch {
      // ignore
    }
  }
  return taps.responseEmit!.apply(this, arguments as unknown as Parameters<Emit>);
}
