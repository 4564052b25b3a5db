import http from 'node:http';
import type { Span } from '@opentelemetry/api';
import type { Recorder } from '../runtime/Recorder';
import type { SourceHost, UnitSource } from '../runtime/UnitSource';
import type { Logger } from '../util/logger';

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
      const request = (message as { request?: object } | undefined)?.request;
      if (request) this.recorder.noteIncoming(request);
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
  }
}
