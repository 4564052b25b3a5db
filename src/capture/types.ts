/** Shapes of what Probe stores (docs/capture-format.md). Field names are the contract: agents and the dashboard read them. */

export type CaptureType = 'request' | 'job' | 'command' | 'test';
export type EndedBy = 'response' | 'exit' | 'error' | 'return';

/** Phase timings of one real call, in ms. A phase not reached is left out. */
export interface Timing {
  dns?: number;
  connect?: number;
  tls?: number;
  wait?: number;
  download?: number;
  redirect?: number;
  remote?: string;
  protocol?: string;
  redirects: number;
}

export interface ExceptionLink {
  class: string;
  message: string;
  code: string | null;
}

export interface ExceptionInfo extends ExceptionLink {
  /** `file:line` of the app frame that made the call. */
  file: string | null;
  /** The `cause` chain, outermost first. */
  previous: ExceptionLink[];
}

export interface Origin {
  file: string;
  line: number;
  /** Up to 5 frames as `file:line function`. */
  chain: string[];
}

/**
 * `{capture, cards, raw}` as readers get it (docs/capture-format.md). As stored, a JSON body is kept once: `raw` holds the
 * body's text and `cards_from_raw` is true, `cards` is left out; readers (capture/readableCapture.ts) parse
 * the cards back from `raw` (null when it does not parse) and give `raw` as `JSON.stringify(cards)`.
 */
export interface ResponseCaptureResult {
  capture: string;
  cards?: unknown;
  raw: string | null;
  /** Stored form only: `cards` is `JSON.parse(raw)`, not stored apart. */
  cards_from_raw?: true;
}

export interface FormattedField {
  format: string;
  text: string;
}

/** One outgoing call (docs/capture-format.md). */
export interface HttpRow {
  method: string;
  url: string;
  host: string;
  endpoint: string;
  request_headers: Record<string, string>;
  request_bytes: number;
  request_payload: Record<string, unknown> | unknown[] | null;
  request_formats?: Record<string, FormattedField>;
  request_body: string | null;
  status: number | null;
  response_headers: Record<string, string>;
  response_bytes: number | null;
  response_capture: ResponseCaptureResult | null;
  response_body: string | null;
  /**
   * Present when the kept body is binary (image/*, octet-stream, PDF, protobuf, or bytes that are not UTF-8):
   * its bytes as base64, secrets found in them masked. As stored, `response_body` is then null; readers
   * (capture/readableCapture.ts) get it as before, the bytes as UTF-8 text. Captures stored before Probe kept
   * binary bodies have only that text.
   */
  response_body_base64?: string;
  duration: number | null;
  timing: Timing | null;
  /** A gRPC call's service and method (`users.Users`, `GetUser`), from its request's path. Missing when not gRPC. */
  grpc?: { service: string; method: string };
  /** A gRPC response's status (trailers, or headers of a trailers-only answer): failed unless `OK`. Missing when not gRPC. */
  grpc_status?: { code: number; name: string; message: string | null };
  failed: boolean;
  exception: ExceptionInfo | null;
  pool: number | null;
  fake: boolean;
  time: number;
  origin: Origin | null;
  /** Present and true when a kept body was cut at `max_body_bytes`. */
  truncated?: boolean;
  /**
   * Rows (indexes in this section) whose answers carried a value this request then sent (in its URL, query,
   * headers or body), found before masking; no value is stored. Left out when none (and in captures made before Probe noted it).
   */
  uses?: number[];
  /** Present (`hit`) when a cache in the client answered (undici's cache interceptor): no request went out. */
  cache?: 'hit';
  /** The connection the request went out on (HTTP/1.x over TCP only): the key that links it to its server's capture. */
  connection?: ConnectionKey;
  /** The id of the request capture, in the service that answered, of this call (docs/flows.md); given by the store when read. */
  answered_by?: string;
  /** The W3C trace context of the call as its span names it, for calls the collector received (their headers are not known). */
  traceparent?: string;
}

export interface HttpTotals {
  http_ms: number;
  http_by_host: Record<string, number>;
  http_calls: number;
  http_failed: number;
}

export interface Summary {
  totals?: HttpTotals;
  errors: string[];
  warnings: string[];
  /** Calls beyond `max_rows`, counted in totals but not kept as rows. */
  dropped_rows?: number;
}

export type SpanKind = 'http' | 'pool' | 'phase';

export interface CaptureSpan {
  id: string;
  kind: SpanKind;
  name: string;
  start: number;
  end: number;
  duration: number;
  meta: Record<string, unknown>;
}

export interface RequestSection {
  method: string;
  url: string;
  path: string;
  route: string | null;
  status: string;
  headers: Record<string, string>;
  remote_address: string | null;
  /** The connection the request came in on, from the server's side (HTTP/1.x over TCP only). */
  connection?: ConnectionKey;
  /** The W3C trace context its span names, for requests the collector received. */
  traceparent?: string;
}

export interface CaptureMeta {
  pid: number;
  hostname: string;
  node: string;
  service: string;
  /** Present when sampling is in effect in the process that wrote the capture. */
  sampling?: SamplingMeta;
  [key: string]: unknown;
}

/** What sampling left out: `skipped` counts root units the writing process did not record since its previous capture. */
export interface SamplingMeta {
  rate: number;
  max_per_second: number | null;
  skipped: number;
}

export interface CaptureSections {
  request?: RequestSection;
  http?: HttpRow[];
  [section: string]: unknown;
}

/** One stored capture (docs/capture-format.md). */
export interface Capture {
  schema_version: 1;
  id: string;
  type: CaptureType;
  name: string;
  status: string;
  /** The service that recorded it (`meta.service`); missing in captures stored before Probe named it here. */
  service?: string;
  /**
   * The call in another service's capture that this request answered (docs/flows.md): present once both are
   * stored and the match is unique. Given by the store when read, never written by the recorder.
   */
  caused_by?: CausedBy;
  label: string | null;
  tags: string[];
  parent_id: string | null;
  trace_id: string;
  linked_via: string | null;
  started_at: number;
  ended_at: number;
  duration: number;
  /** How the unit of work ended; copied into the index row. */
  ended_by: EndedBy;
  /** The id given to `job(name, fn, {id})`, else null. */
  job_id: string | null;
  meta: CaptureMeta;
  summary: Summary;
  spans: CaptureSpan[];
  sections: CaptureSections;
}

/** The capture and row index of the call that caused a request capture. */
export interface CausedBy {
  capture: string;
  row: number;
}

/**
 * How a call met its server, as both ends see the connection (docs/flows.md): `local` and `remote` are
 * `address:port` from this side, `order` counts the requests on that connection from 1.
 */
export interface ConnectionKey {
  local: string;
  remote: string;
  order: number;
}

/** What `store.index()` returns per capture (docs/capture-format.md). */
export interface IndexRow {
  id: string;
  parent_id: string | null;
  trace_id: string;
  linked_via: string | null;
  type: CaptureType;
  name: string;
  /** See Capture.service. */
  service?: string;
  route: string | null;
  status: string;
  label: string | null;
  duration: number;
  started_at: number;
  ended_by: EndedBy;
  counts: Record<string, number>;
  has_errors: boolean;
  warnings: number;
  errors: number;
  tags: string[];
  job_id: string | null;
  /** Present when sampling was in effect where the capture was made (see CaptureMeta.sampling). */
  sampling?: SamplingMeta;
}
