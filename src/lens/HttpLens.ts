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
import { appInstrumentsHttp, neverUnwrapOthers } from '../runtime/join/appHttp';
import { adoptAppHttpInstrumentation } from '../runtime/join/adopt';
import type { JoinEntry } from '../runtime/join/Joiner';
import type { LensFactory } from './Lens';
import type { IncomingRequests } from './IncomingRequests';
import { wrapHttpEntries } from './httpEntry';
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
    let instrumentation: HttpInstrumentation | undefined;
    if (!appInstrumentsHttp()) {
      instrumentation = new HttpInstrumentation({ ...hooks, ignoreOutgoingRequestHook: () => joiner.appPresent, enabled: false });
      neverUnwrapOthers(instrumentation);
      joiner.stepAsideForAppServerSpans(instrumentation);
    }
    const join: JoinEntry = { channel: 'http.client.request.start', scope: SCOPE, hook: lens.requestHook as JoinEntry['hook'], underActiveClient: true };
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
    const url = `${request.protocol}//${authority(request)}${request.path}`;
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
    // has sent them (or the request fails or closes before either).
    record.setRequest(UNSENT);
    // The wrappers pass `arguments` on as they came: no rest arrays per event and chunk, and the original
    // sees exactly the arguments the caller gave.
    const write = request.write as (...args: unknown[]) => boolean;
    request.write = function (this: http.ClientRequest, chunk: unknown, encoding?: unknown) {
      tapChunk(record, chunk, encoding);
      const result = write.apply(this, arguments as unknown as unknown[]);
      takeHeaders(record, this);
      return result;
    } as typeof request.write;
    const end = request.end as (...args: unknown[]) => http.ClientRequest;
    request.end = function (this: http.ClientRequest, chunk?: unknown, encoding?: unknown) {
      if (typeof chunk !== 'function') tapChunk(record, chunk, encoding);
      const result = end.apply(this, arguments as unknown as unknown[]);
      takeHeaders(record, this);
      return result;
    } as typeof request.end;

    const emit = request.emit as Emit;
    request.emit = function (this: http.ClientRequest, event: string | symbol, first?: unknown) {
      try {
        if (event === 'error' || event === 'close') takeHeaders(record, this);
        observeRequest(record, event, first);
      } catch {
        // observing never changes delivery
      }
      return emit.apply(this, arguments as unknown as Parameters<Emit>);
    } as typeof request.emit;
  }
}

/** A request's headers before they are taken: shared, never written to. */
const UNSENT: CallRecord['requestHeaders'] = Object.freeze({});

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

/** The socket a request was given, until its response says the connection's address and protocol. */
const assigned = new WeakMap<CallRecord, import('node:net').Socket>();

/** `first` is the event's first argument (the socket, the response, the error). */
function observeRequest(record: CallRecord, event: string | symbol, first: unknown): void {
  switch (event) {
    case 'socket': {
      const socket = first as import('node:net').Socket;
      if (socket?.constructor?.name === 'MockHttpSocket') {
        record.markFake(); // nock / msw answer through @mswjs/interceptors' socket
        return;
      }
      if (socket.connecting) watchSocket(socket);
      assigned.set(record, socket);
      break;
    }
    case 'finish':
      record.markSent();
      break;
    case 'response': {
      const response = first as http.IncomingMessage;
      answered(record, response);
      tapResponse(record, response);
      const encoding = response.headers['content-encoding'];
      if (encoding && record.clientDecodes) record.responseTap().decodeWith(decodedCount(encoding, record.maxBodyBytes));
      break;
    }
    case 'upgrade': {
      // A WebSocket handshake (or any protocol switch): the 101 response is the call's answer, and the socket
      // now belongs to the new protocol, so the call ends here (no body, no 'close' while the socket lives).
      const response = first as http.IncomingMessage;
      answered(record, response);
      record.finish();
      break;
    }
    case 'error':
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
function answered(record: CallRecord, response: http.IncomingMessage): void {
  const socket = assigned.get(record);
  if (socket && !record.fake) {
    assigned.delete(record);
    record.useSocket(socket, socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : undefined, `HTTP/${response.httpVersion}`);
  }
  record.markHeaders(response.statusCode ?? 0, { ...response.headers });
}

function tapResponse(record: CallRecord, response: http.IncomingMessage): void {
  const tap = record.responseTap();
  const push = response.push;
  response.push = function (this: http.IncomingMessage, chunk: unknown, encoding?: BufferEncoding) {
    try {
      if (chunk === null) record.finish();
      else tap.add(chunk, encoding);
    } catch {
      // never in the way of the stream
    }
    return push.call(this, chunk, encoding);
  };
  const emit = response.emit as Emit;
  response.emit = function (this: http.IncomingMessage, event: string | symbol, first?: unknown) {
    if ((event === 'aborted' || event === 'error') && record.end === null) {
      try {
        record.fail(errorInput(first ?? new Error('response aborted')));
      } catch {
        // ignore
      }
    }
    return emit.apply(this, arguments as unknown as Parameters<Emit>);
  } as typeof response.emit;
}
