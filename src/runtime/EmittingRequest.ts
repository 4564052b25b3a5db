/**
 * The incoming node:http request whose 'request' event is being emitted now, told by `http.server.request.start`
 * just before the emit. Every server span started during that emit is the same request (Sentry 8 starts two, an
 * app's instrumentation beside Probe's may add another). Forgotten on the next microtask: the emit is synchronous.
 */
export class EmittingRequest {
  private request: object | undefined;

  note(request: object): void {
    this.request = request;
    queueMicrotask(() => {
      if (this.request === request) this.request = undefined;
    });
  }

  get current(): object | undefined {
    return this.request;
  }

  /** The request, forgotten now: one server span takes it. */
  take(): object | undefined {
    const request = this.request;
    this.request = undefined;
    return request;
  }
}
