import http from 'node:http';
import { announceServer } from '../runtime/ownServers';
import type { Span } from '@opentelemetry/api';
import type { Recorder } from '../runtime/Recorder';
import type { SourceHost, UnitSource } from '../runtime/UnitSource';
import type { Logger } from '../util/logger';
import type { Unit } from '../runtime/Unit';
import { graphqlOperation } from './graphqlOperation';
import { countIncoming, requestConnection } from '../runtime/connections';

/** Request bodies read for a GraphQL operation's name at most this long: a document, not an upload. */
const OPERATION_BODY_LIMIT = 64 * 1024;

/**
 * The unit source of incoming requests: a server span (instrumentation-http's, or the app's own when Probe joins
 * its setup) opens a `request` unit in the recorder; this source fills in what the request was (method, URL,
 * headers) and its status, and tells the recorder which node:http request is being emitted now, so every server
 * span of one request shares one unit (see Recorder.noteIncoming).
 */
export class IncomingRequests implements UnitSource {
  readonly name = 'requests';
  readonly instrumentations = [];
  private readonly recorder: Recorder;
  private readonly logger: Logger;

  constructor(private readonly host: SourceHost) {
    this.recorder = host.recorder;
    this.logger = host.logger;
  }

  /** A server span started for an incoming node:http request. */
  readonly requestHook = (span: Span, request: object): void => {
    try {
      if (request instanceof http.IncomingMessage) this.incoming(span, request);
    } catch (error) {
      this.logger.warnOnce('http-start', 'could not record an http call', error);
    }
  };

  /** The response of a request (or, from instrumentation-http, of an outgoing call: not this source's). */
  readonly responseHook = (span: Span, response: object): void => {
    try {
      if (response instanceof http.ServerResponse) {
        const unit = this.recorder.unitOfSpan(span.spanContext().spanId);
        if (unit.request) unit.request.status = response.statusCode;
      }
    } catch (error) {
      this.logger.warnOnce('http-response', 'could not read a response', error);
    }
  };

  enable(): () => void {
    // With the HTTP lens on, requests whose server span the app's instrumentation makes are followed too.
    if (this.host.config.http) this.host.joiner.followRequests({ request: this.requestHook, response: this.responseHook });
    return this.host.subscribe('http.server.request.start', (message) => {
      const { request, server } = (message ?? {}) as { request?: object; server?: unknown };
      if (request) {
        this.recorder.noteIncoming(request);
        // Every request counts, recorded or not: its order on the connection is what its caller's row saw.
        const socket = (request as http.IncomingMessage).socket;
        if ((request as http.IncomingMessage).httpVersionMajor === 1) countIncoming(request, socket);
      }
      // Listed before it answers: a dev server proxying to it drops its own copy of the request (see proxyHop).
      announceServer(this.host.config.root, server);
    });
  }

  private incoming(span: Span, request: http.IncomingMessage): void {
    const unit = this.recorder.unitOfSpan(span.spanContext().spanId);
    // Once per request: a second server span of the same request (see Recorder.noteIncoming) shares the unit.
    // A request left out by sampling is never written: nothing of it is copied.
    if (unit.type !== 'request' || unit.request || !unit.sampled) return;
    const method = (request.method ?? 'GET').toUpperCase();
    const target = request.url ?? '/';
    const encrypted = Boolean((request.socket as { encrypted?: boolean } | undefined)?.encrypted);
    const host = request.headers.host ?? request.headers[':authority'] ?? 'localhost';
    unit.name = `${method} ${target.split('?')[0]}`;
    unit.request = {
      method,
      url: `${encrypted ? 'https' : 'http'}://${host}${target}`,
      route: null,
      status: null,
      headers: { ...request.headers },
      remoteAddress: request.socket?.remoteAddress ?? null,
    };
    const connection = requestConnection(request, request.socket);
    if (connection) unit.request.connection = connection;
    watchOperation(unit, request, method, target);
  }
}

/**
 * A GraphQL request's operation name in its capture's name (`POST /graphql (GetUser)`), so a list of them can be
 * told apart: read off the request itself when the unit closes (see graphqlOperation), whichever server answered.
 * The body is seen as node:http's parser pushes it, never read by Probe: the app's stream is left as it is.
 */
function watchOperation(unit: Unit, request: http.IncomingMessage, method: string, target: string): void {
  const at = target.indexOf('?');
  const search = at >= 0 ? target.slice(at + 1) : '';
  if (method === 'GET') {
    if (/(^|&)query=/.test(search)) unit.operationFrom = () => graphqlOperation(undefined, null, search);
    return;
  }
  if (method !== 'POST') return;
  const type = request.headers['content-type'];
  if (!type || !/json|graphql/i.test(type)) return;
  const length = Number(request.headers['content-length']);
  if (length > OPERATION_BODY_LIMIT) return;
  const chunks: Buffer[] = [];
  let size = 0;
  const push = request.push;
  request.push = function (this: http.IncomingMessage, chunk: unknown, encoding?: BufferEncoding) {
    try {
      if (chunk !== null && size <= OPERATION_BODY_LIMIT) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.isBuffer(chunk) ? chunk : null;
        if (bytes) {
          size += bytes.length;
          if (size <= OPERATION_BODY_LIMIT) chunks.push(bytes);
          else chunks.length = 0;
        }
      }
    } catch {
      // never in the way of the stream
    }
    return push.call(this, chunk, encoding);
  };
  unit.operationFrom = () => {
    if (!chunks.length || size > OPERATION_BODY_LIMIT) return null;
    const body = Buffer.concat(chunks).toString('utf8');
    // Most JSON bodies are not GraphQL's: those are not parsed a second time.
    if (/json/i.test(type) && !body.includes('"query"') && !body.includes('"operationName"')) return null;
    return graphqlOperation(type, body, search);
  };
}
