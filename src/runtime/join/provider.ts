import { SpanKind, context, type Context, type Span as ApiSpan, type SpanOptions } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MirrorSpan } from './MirrorSpan';
import { patchMethod, recordPatch } from '../../util/patches';

interface SdkProvider {
  addSpanProcessor?: (processor: SpanProcessor) => void;
  _activeSpanProcessor?: { _spanProcessors?: SpanProcessor[] };
  getTracer?: unknown;
}

/** A provider that makes real spans (not the API's no-op one): it can be joined or at least told apart. */
export function isRealProvider(provider: unknown): boolean {
  const p = provider as SdkProvider | undefined;
  return Boolean(p && typeof p.getTracer === 'function' && p.constructor?.name !== 'NoopTracerProvider');
}

/**
 * Adds Probe's processor to an app's tracer provider. SDK 1.x has `addSpanProcessor`; SDK 2.x fixes the
 * processors at construction in a MultiSpanProcessor shared by every tracer, whose private array is the
 * only way in (guarded: an unknown shape means "not joined", never an error).
 */
export function addProcessor(provider: unknown, processor: SpanProcessor): boolean {
  const p = provider as SdkProvider;
  try {
    const list = p._activeSpanProcessor?._spanProcessors;
    if (Array.isArray(list)) {
      if (!list.includes(processor)) list.push(processor);
      return true;
    }
    if (typeof p.addSpanProcessor === 'function') {
      p.addSpanProcessor(processor);
      return true;
    }
  } catch {
    // an unusual provider: Probe keeps recording with its own spans
  }
  return false;
}

type StartSpan = (this: unknown, name: string, options?: SpanOptions, ctx?: Context) => ApiSpan;
const MIRRORED = Symbol.for('probe.join.mirrored');
const MIRROR_WHY =
  "Sentry's minimal SentryTracerProvider fixes its span processing at construction and takes no SpanProcessor (https://github.com/getsentry/sentry-javascript/tree/develop/packages/opentelemetry): its tracers' spans are the only way to see the app's units";

/**
 * Joins a provider that takes no processors (Sentry's default minimal SentryTracerProvider): its
 * `getTracer` hands out the same tracers, each with `startSpan` patched in place (so the tracer's own
 * `startActiveSpan` goes through it too), and every recording span they start is mirrored to `processor`:
 * a MirrorSpan record with the span's context starts and ends with it. The app's spans, contexts and
 * tracers behave exactly as before; Probe only hears of them.
 */
export function mirrorTracers(provider: unknown, processor: SpanProcessor): boolean {
  const p = provider as { getTracer?: (...args: unknown[]) => unknown; _tracers?: unknown; [MIRRORED]?: boolean };
  if (typeof p.getTracer !== 'function') return false;
  if (p[MIRRORED]) return true;
  patchMethod(
    p as Required<Pick<typeof p, 'getTracer'>>,
    'getTracer',
    'app tracer provider getTracer (processor-less, e.g. Sentry)',
    MIRROR_WHY,
    (getTracer) =>
      function (this: unknown, ...args: unknown[]) {
        const tracer = getTracer.apply(this, args);
        patchTracer(tracer, processor);
        return tracer;
      },
  );
  // Tracers the app took before Probe started (start() called after Sentry.init): Sentry's provider caches them here.
  if (p._tracers instanceof Map) for (const tracer of p._tracers.values()) patchTracer(tracer, processor);
  p[MIRRORED] = true;
  recordPatch('app tracer provider mirror mark', 'lets a later start() join it again', () => delete p[MIRRORED]);
  return true;
}

function patchTracer(value: unknown, processor: SpanProcessor): void {
  const tracer = value as { startSpan?: StartSpan; [MIRRORED]?: boolean } | undefined;
  if (!tracer || typeof tracer.startSpan !== 'function' || tracer[MIRRORED]) return;
  patchMethod(
    tracer as { startSpan: StartSpan },
    'startSpan',
    'app tracer startSpan (processor-less provider)',
    MIRROR_WHY,
    (startSpan) =>
      function (this: unknown, name, options, ctx) {
        const span = startSpan.call(this, name, options, ctx);
        mirror(span, name, options ?? {}, ctx ?? context.active(), processor);
        return span;
      },
  );
  tracer[MIRRORED] = true;
  recordPatch('app tracer mirror mark', 'lets a later start() mirror it again', () => delete tracer[MIRRORED]);
}

function mirror(span: ApiSpan, name: string, options: SpanOptions, parent: Context, processor: SpanProcessor): void {
  try {
    if (!span?.isRecording?.()) return;
    const record = new MirrorSpan(span, name, options.kind ?? SpanKind.INTERNAL, parent, options.startTime, (ended) =>
      processor.onEnd(ended as unknown as ReadableSpan),
    );
    if (options.attributes) record.setAttributes(options.attributes);
    // What the app (or Probe's job()) sets on the span is mirrored onto the record, then done on the span.
    const target = span as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const key of ['setAttribute', 'setAttributes', 'setStatus', 'updateName', 'end'] as const) {
      const original = target[key];
      if (typeof original !== 'function') continue;
      const copy = (record[key] as (...args: unknown[]) => unknown).bind(record);
      target[key] = function (this: unknown, ...args: unknown[]) {
        try {
          copy(...args);
        } catch {
          // the record is Probe's: the app's call goes on
        }
        return original.apply(this, args);
      };
    }
    processor.onStart(record as unknown as Span, parent);
  } catch {
    // an unusual span: Probe records its calls without it
  }
}
