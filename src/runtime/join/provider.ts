import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

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
