import { SpanKind, type Attributes } from '@opentelemetry/api';
import { PROBE_ATTRIBUTES } from '../capture/attributes';

/** What opens a unit of work from a span: the unit sources that work through spans, whoever made the span. */
export type SpanUnit =
  /** `job(name, fn)` / `command(name, fn)`: Probe's own span, marked `probe.unit` (see runtime/api). */
  | { type: 'job' | 'command'; jobId: string | null }
  /** A SERVER span (instrumentation-http's, or the app's own): an incoming request (see lens/IncomingRequests). */
  | { type: 'request' }
  /** A CONSUMER span with no live unit around it: a queue consumer's message (BullMQ, Kafka, SQS instrumentations). */
  | { type: 'consumer' };

interface SpanLike {
  kind: SpanKind;
  attributes: Attributes;
}

/** The unit `span` opens, or null when it belongs to the unit around it (`inUnit`: a live unit is its parent). */
export function unitOpenedBy(span: SpanLike, inUnit: boolean): SpanUnit | null {
  const marker = span.attributes[PROBE_ATTRIBUTES.unit];
  if (marker === 'job' || marker === 'command') {
    const jobId = span.attributes[PROBE_ATTRIBUTES.jobId];
    return { type: marker, jobId: typeof jobId === 'string' ? jobId : null };
  }
  if (span.kind === SpanKind.SERVER) return { type: 'request' };
  if (span.kind === SpanKind.CONSUMER && !inUnit) return { type: 'consumer' };
  return null;
}
