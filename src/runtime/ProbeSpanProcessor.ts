import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Recorder } from './Recorder';
import type { Logger } from '../util/logger';

/**
 * Probe's span processor: sees every span of the provider it sits in (its own or the app's) and hands
 * them to the recorder. It never throws into the tracer and never changes a span.
 */
export class ProbeSpanProcessor implements SpanProcessor {
  constructor(
    private readonly recorder: Recorder,
    private readonly logger: Logger,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    try {
      this.recorder.onStart(span, parentContext);
    } catch (error) {
      this.logger.warnOnce('processor-start', 'span processor failed on start', error);
    }
  }

  onEnd(span: ReadableSpan): void {
    try {
      this.recorder.onEnd(span);
    } catch (error) {
      this.logger.warnOnce('processor-end', 'span processor failed on end', error);
    }
  }

  forceFlush(): Promise<void> {
    return this.recorder.writer.flush();
  }

  shutdown(): Promise<void> {
    return this.recorder.writer.flush();
  }
}
