import diagnostics from 'node:diagnostics_channel';
import { keepChannel } from '../../util/keptChannels';
import { SpanKind, context, trace, type Context, type Span as ApiSpan, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { isTracingSuppressed } from '@opentelemetry/core';
import type { Logger } from '../../util/logger';
import { addProcessor, isRealProvider, mirrorTracers } from './provider';
import { EmittingRequest } from '../EmittingRequest';
import { MarkSet } from '../../util/MarkSet';
import { listenHidden } from '../responseListeners';

export type Hook<R> = (span: ApiSpan, request: R) => void;

/**
 * Where a lens is driven once the app's instrumentation makes the spans: the diagnostics channel that reports a
 * new request, the lens hook to run for it, and the instrumentation scope the lens's spans carry (the shadow
 * span Probe makes when the app has no span for the call is given the same scope, so the recorder leaves it out
 * of the timeline as it does the lens's own spans).
 */
export interface JoinEntry {
  channel: string;
  scope: string;
  hook: Hook<object>;
  /** Run under the app's client span when that is the active span (node:http's instrumentation makes it first). */
  underActiveClient?: boolean;
}

/** The incoming-request unit source's hooks, run for requests the app's server instrumentation makes spans for. */
export interface RequestHooks {
  request: Hook<object>;
  response: Hook<object>;
}

/**
 * Probe inside an app that has its own OpenTelemetry setup. Without one, Probe's instrumentations make
 * private spans on Probe's own provider (never registered, no propagator: nothing on the wire). Once the app
 * registers a tracer provider ("app present"):
 * - Probe's processor joins that provider, so Probe sees the app's spans and units follow them;
 * - Probe's own instrumentations stop making client spans (their ignore hooks ask `appPresent`), so the
 *   app's instrumentations alone decide spans and propagation headers: one span and one `traceparent` per
 *   call, exactly as without Probe;
 * - the lens is driven from Node's diagnostics channels (`http.client.request.start`,
 *   `undici:request:create`, `http.server.request.start`) instead, under the app's active span, or under a
 *   short-lived span of Probe's own provider that never enters the context when there is none.
 * Every hook runs the lens at most once per request, whichever path sees it first.
 */
export class Joiner {
  appPresent = false;
  private readonly handled = new MarkSet();
  private readonly providers = new WeakSet<object>();
  private readonly subscriptions: Array<[string, (message: unknown) => void]> = [];
  /** A request no path recorded yet whose 'request' emit runs now: the server span the app makes in it is its. */
  private readonly pendingIncoming = new EmittingRequest();
  private appProvider: TracerProvider | undefined;
  private readonly entries: JoinEntry[] = [];
  private readonly shadows = new Map<string, Tracer>();
  private requests: RequestHooks | undefined;
  /** Added to the app's provider: Probe's processor, plus the incoming-request lens for the app's server spans. */
  readonly appProcessor: SpanProcessor;

  constructor(
    private readonly own: TracerProvider,
    private readonly processor: SpanProcessor,
    private readonly logger: Logger,
  ) {
    this.appProcessor = {
      onStart: (span: Span, parent: Context) => {
        this.processor.onStart(span, parent);
        this.onServerSpan(span);
      },
      onEnd: (span: ReadableSpan) => this.processor.onEnd(span),
      forceFlush: () => this.processor.forceFlush(),
      shutdown: () => this.processor.forceFlush(),
    };
  }

  /** A lens's join entries (see Lens.joins): subscribed once the app's setup is present. */
  join(entries: readonly JoinEntry[]): void {
    for (const entry of entries) {
      this.entries.push(entry);
      if (this.appPresent) this.subscribeEntry(entry);
    }
  }

  /** The incoming-request unit source (see IncomingRequests), for requests the app's server spans stand for. */
  followRequests(hooks: RequestHooks): void {
    this.requests = hooks;
  }

  /** The tracer for Probe's own unit spans (`job()`, `command()`): the app's once it has one. */
  tracer(fallback: Tracer): Tracer {
    return this.appProvider ? this.appProvider.getTracer('probe') : fallback;
  }

  /** Wraps a lens hook so each request is recorded once, by whichever path reaches it first. */
  once<R extends object>(hook: Hook<R>): Hook<R> {
    return (span, request) => {
      if (!request || this.handled.has(request)) return;
      this.handled.add(request);
      hook(span, request);
    };
  }

  /**
   * A request no lens hook recorded where the lens saw it made (node:http's `http.request`/`get`, see
   * wrapHttpEntries and passCallerArguments): recorded now, under the app's span context, with a span of Probe's
   * that never enters the context. Requests made with tracing suppressed (an exporter's own) are left out.
   */
  missed(entry: JoinEntry, request: object): void {
    if (this.handled.has(request)) return;
    try {
      this.runUnder(entry, request, false);
    } catch (error) {
      this.logger.warnOnce(`join-missed-${entry.scope}`, 'could not record a call', error);
    }
  }

  /** Called with every provider the app registers globally (see watchTracerProvider). */
  readonly onProvider = (provider: unknown): void => {
    try {
      if (!provider || provider === this.own || this.providers.has(provider as object) || !isRealProvider(provider)) return;
      this.providers.add(provider as object);
      // An SDK provider takes Probe's processor; one without a processor list has its tracers' spans mirrored to it.
      if (addProcessor(provider, this.appProcessor) || mirrorTracers(provider, this.appProcessor)) this.appProvider = provider as TracerProvider;
      else this.logger.debug('the app tracer provider cannot be joined; calls are still recorded');
      if (!this.appPresent) {
        this.appPresent = true;
        this.subscribe();
      }
    } catch (error) {
      this.logger.warnOnce('join', 'could not join the app OpenTelemetry setup', error);
    }
  };

  /**
   * Steps Probe's HttpInstrumentation aside for a request the app's own server instrumentation already
   * made a span for (Sentry's, an SDK's other copy): the app's handler then runs in exactly the context
   * the app made. Any second server span made active there (even one with the same span context) takes
   * the request's client spans out of Sentry's transaction, and an ignore hook would suppress tracing for
   * the whole request. Probe follows such a request itself (see followAppServerSpan).
   */
  stepAsideForAppServerSpans(instrumentation: object): void {
    type Emit = (this: unknown, event: string, ...args: unknown[]) => unknown;
    const target = instrumentation as { _incomingRequestFunction?: (component: string, original: Emit) => Emit };
    const make = target._incomingRequestFunction;
    if (typeof make !== 'function') return;
    const follow = (request: unknown, response: unknown) => this.followAppServerSpan(request, response);
    target._incomingRequestFunction = function (this: unknown, component, original) {
      const patched = make.call(this, component, original);
      // Runs on every event the server emits: `arguments` passed on as they came, no arrays made per event.
      return function (this: unknown, event: string, request?: unknown, response?: unknown) {
        if (event === 'request' && follow(request, response)) return original.apply(this, arguments as unknown as Parameters<Emit>);
        return patched.apply(this, arguments as unknown as Parameters<Emit>);
      } as Emit;
    };
  }

  /**
   * True when the app's instrumentation made the active server span for this request: Probe's joined
   * processor already opened its unit, and Probe records the request and its status from the app's span.
   */
  private followAppServerSpan(request: unknown, response: unknown): boolean {
    try {
      if (!this.appProvider || !request || !response) return false;
      const active = trace.getSpan(context.active()) as (ApiSpan & { kind?: SpanKind }) | undefined;
      if (active?.kind !== SpanKind.SERVER || !active.isRecording()) return false;
      const incoming = request as object;
      const outgoing = response as { statusCode?: number };
      if (!this.handled.has(incoming)) {
        this.handled.add(incoming);
        this.requests?.request(active, incoming);
      }
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        try {
          this.requests?.response(active, outgoing);
        } catch (error) {
          this.logger.warnOnce('join-server-end', 'could not close a request', error);
        }
      };
      // Off the response's listener list (see listenHidden): the app counts only its own setup's.
      listenHidden(outgoing, 'finish', finish);
      listenHidden(outgoing, 'close', finish);
      return true;
    } catch (error) {
      this.logger.warnOnce('join-server', 'could not follow an app server span', error);
      return false;
    }
  }

  private subscribe(): void {
    for (const entry of this.entries) this.subscribeEntry(entry);
    this.on('http.server.request.start', ({ request }) => {
      if (!request || this.handled.has(request)) return;
      // The server span for it starts synchronously in the 'request' emit that follows.
      this.pendingIncoming.note(request);
    });
  }

  private subscribeEntry(entry: JoinEntry): void {
    this.on(entry.channel, ({ request }) => {
      if (request && !this.handled.has(request)) this.runUnder(entry, request, entry.underActiveClient === true);
    });
  }

  /** A tracer of Probe's own provider with the lens's scope name: the recorder leaves its client spans out of the timeline. */
  private shadow(scope: string): Tracer {
    let tracer = this.shadows.get(scope);
    if (!tracer) this.shadows.set(scope, (tracer = this.own.getTracer(scope)));
    return tracer;
  }

  /**
   * Runs a lens hook for a request the app's instrumentation (or no instrumentation) is handling: under the
   * app's own client span when it is the active one, else under a span of Probe's provider that is ended at
   * once and never made active, so nothing else can parent to it or propagate it.
   */
  private runUnder(entry: JoinEntry, request: object, activeClient: boolean): void {
    const hook = entry.hook;
    this.handled.add(request);
    // An exporter's own requests (OTLP, Sentry's transport) run with tracing suppressed, as they do for Probe's instrumentations.
    if (isTracingSuppressed(context.active())) return;
    const active = trace.getSpan(context.active()) as (ApiSpan & { kind?: SpanKind }) | undefined;
    if (activeClient && active?.kind === SpanKind.CLIENT && active.isRecording()) {
      hook(active, request);
      return;
    }
    const method = (request as { method?: string }).method ?? 'GET';
    const span = this.shadow(entry.scope).startSpan(method, { kind: SpanKind.CLIENT }, context.active());
    try {
      hook(span, request);
    } finally {
      span.end();
    }
  }

  private onServerSpan(span: Span): void {
    if (!this.pendingIncoming.current || span.kind !== SpanKind.SERVER || !this.requests) return;
    const request = this.pendingIncoming.take()!;
    if (this.handled.has(request)) return;
    this.handled.add(request);
    this.requests.request(span, request);
  }

  private on(name: string, handler: (message: { request?: object }) => void): void {
    const safe = (message: unknown) => {
      try {
        handler((message ?? {}) as { request?: object });
      } catch (error) {
        this.logger.warnOnce(`join-${name}`, `could not record through ${name}`, error);
      }
    };
    keepChannel(name);
    diagnostics.subscribe(name, safe);
    this.subscriptions.push([name, safe]);
  }

  stop(): void {
    for (const [name, handler] of this.subscriptions) diagnostics.unsubscribe(name, handler);
    this.subscriptions.length = 0;
    this.appPresent = false;
  }
}
