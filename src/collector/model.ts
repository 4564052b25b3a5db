/** The span shape the collector works on, whatever the wire format was (OTLP JSON or protobuf). */

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

/** `opentelemetry.proto.trace.v1.Span.SpanKind`. */
export const SpanKind = { UNSPECIFIED: 0, INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

/** `opentelemetry.proto.trace.v1.Status.StatusCode`. */
export const StatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const;

export interface OtlpEvent {
  name: string;
  /** Epoch ms (fractions allowed). */
  time: number;
  attributes: Attributes;
}

export interface OtlpSpan {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  parentSpanId: string | null;
  /** From the span flags when the SDK set them (bits 8 and 9), else null: unknown. */
  parentIsRemote: boolean | null;
  name: string;
  kind: number;
  /** Epoch ms (fractions allowed). */
  start: number;
  end: number;
  attributes: Attributes;
  events: OtlpEvent[];
  status: { code: number; message: string };
  /** The attributes of the resource that sent the span (`service.name`, `host.name`, `process.pid`...). */
  resource: Attributes;
  scope: { name: string; version: string };
}

/** A decoded `ExportTraceServiceRequest`: the spans kept and how many were rejected as malformed. */
export interface DecodedExport {
  spans: OtlpSpan[];
  rejected: number;
  /** The first rejection reason, for the partial-success message. */
  rejectReason: string | null;
}

/** The payload is not an OTLP trace export: answered with 400 and this message. */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}

/** The payload is over a bound on what one request may hold (spans, attribute values): answered with 413. */
export class OtlpLimitError extends Error {
  override readonly name = 'OtlpLimitError';
}
