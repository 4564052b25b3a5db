import { AsyncLocalStorage } from 'node:async_hooks';
import { SpanKind as Kind, context, trace, type Attributes, type Context, type Span as ApiSpan, type SpanKind, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../../util/logger';
import { MirrorSpan } from './mirror';

/**
 * Follows the app's spans that open a unit (server spans, Probe's `job()`/`command()` spans) when Probe's
 * processor could not join the app's provider (Sentry's default minimal provider takes no processors).
 * Each gets a MirrorSpan record fed to Probe's processor, so the recorder opens and closes its unit; the
 * app's spans and contexts are left as they are. Calls find their unit through `parentFor`.
 */
export class Follower {
  private readonly records = new WeakMap<object, MirrorSpan>();
  private readonly byTrace = new Map<string, Set<MirrorSpan>>();
  /** The request being handled, for calls made under spans of the app Probe never saw (its middleware spans). */
  private readonly current = new AsyncLocalStorage<MirrorSpan>();

  constructor(
    private readonly processor: SpanProcessor,
    private readonly logger: Logger,
  ) {}

  /** Opens a unit for the app's span; the record ends when `end` is called on it. */
  open(app: ApiSpan, name: string, kind: SpanKind, parent: Context, attributes?: Attributes): MirrorSpan {
    const traceId = app.spanContext().traceId;
    const record = new MirrorSpan(app, name, kind, parent, undefined, (ended) => {
      this.byTrace.get(traceId)?.delete(ended);
      if (this.byTrace.get(traceId)?.size === 0) this.byTrace.delete(traceId);
      this.processor.onEnd(ended as unknown as ReadableSpan);
    });
    if (attributes) record.setAttributes(attributes);
    this.records.set(app, record);
    let live = this.byTrace.get(traceId);
    if (!live) this.byTrace.set(traceId, (live = new Set()));
    live.add(record);
    this.processor.onStart(record as unknown as Span, parent);
    return record;
  }

  /** Runs the request's handler with its record known to later calls (invisible to the app). */
  run<T>(record: MirrorSpan, fn: () => T): T {
    return this.current.run(record, fn);
  }

  /**
   * The context a call's span should start from: the active one when its span is a unit's own, else the
   * one of the unit it runs in: the record of the active span, of the request being handled, or the only
   * live record of the active span's trace.
   */
  parentFor(active: Context): Context {
    const span = trace.getSpan(active);
    if (!span) return active;
    const own = this.records.get(span);
    if (own) return active;
    const traceId = span.spanContext().traceId;
    const request = this.current.getStore();
    let record = request && !request.ended && request.spanContext().traceId === traceId ? request : undefined;
    if (!record) {
      const live = this.byTrace.get(traceId);
      if (live?.size === 1) record = [...live][0];
    }
    return record ? trace.setSpan(active, record as unknown as ApiSpan) : active;
  }

  /**
   * The app's tracer for Probe's own unit spans: the span is the app's (exported by its setup, the parent
   * of what runs inside, as with a joined provider), and its record mirrors what Probe sets on it.
   */
  tracer(app: Tracer): Tracer {
    return {
      startSpan: (name: string, options?: SpanOptions, ctx?: Context) => {
        const span = app.startSpan(name, options, ctx);
        try {
          this.track(span, name, options ?? {}, ctx);
        } catch (error) {
          this.logger.warnOnce('join-unit', 'could not follow a unit span', error);
        }
        return span;
      },
      startActiveSpan: app.startActiveSpan.bind(app),
    } as Tracer;
  }

  private track(span: ApiSpan, name: string, options: SpanOptions, ctx: Context | undefined): void {
    const record = this.open(span, name, options.kind ?? Kind.INTERNAL, ctx ?? context.active(), options.attributes);
    // This span is Probe's own (made for job()/command()): what Probe sets on it is mirrored onto the record.
    const target = span as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const key of ['setAttribute', 'setAttributes', 'setStatus', 'updateName', 'end'] as const) {
      const original = target[key];
      if (typeof original !== 'function') continue;
      const mirror = (record[key] as (...args: unknown[]) => unknown).bind(record);
      target[key] = function (this: unknown, ...args: unknown[]) {
        try {
          mirror(...args);
        } catch {
          // the record is Probe's: the app's call goes on
        }
        return original.apply(this, args);
      };
    }
  }
}
