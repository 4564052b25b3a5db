import {
  trace,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Context,
  type HrTime,
  type Link,
  type Span as ApiSpan,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import { hrTime, hrTimeDuration, timeInputToHrTime } from '@opentelemetry/core';

/**
 * Probe's record of a span the app's tracer made, for a provider Probe's processor could not join
 * (Sentry's minimal provider takes no processors; see provider.ts mirrorTracers). It has the app span's
 * context, so calls are found under the app's span id, and is handed to Probe's processor as if it were
 * the span: the recorder opens and closes units for it as for any span. It never enters any context and never
 * touches the app's span.
 */
export class MirrorSpan {
  attributes: Attributes = {};
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endTime: HrTime = [0, 0];
  ended = false;
  readonly startTime: HrTime;
  readonly parentSpanContext;
  readonly instrumentationScope = { name: '@opentelemetry/instrumentation-http' };
  readonly events: never[] = [];
  readonly links: Link[] = [];
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;

  constructor(
    private readonly app: ApiSpan,
    public name: string,
    readonly kind: SpanKind,
    parent: Context,
    startTime: TimeInput | undefined,
    private readonly onEnd?: (span: MirrorSpan) => void,
  ) {
    this.startTime = startTime === undefined ? hrTime() : timeInputToHrTime(startTime);
    this.parentSpanContext = trace.getSpan(parent)?.spanContext();
  }

  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  spanContext() {
    return this.app.spanContext();
  }

  isRecording(): boolean {
    return !this.ended && this.app.isRecording();
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (value !== undefined && !this.ended) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(): this {
    return this;
  }

  addLink(): this {
    return this;
  }

  addLinks(): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.ended) this.status = status;
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(): void {}

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    this.endTime = endTime === undefined ? hrTime() : timeInputToHrTime(endTime);
    this.onEnd?.(this);
  }
}
