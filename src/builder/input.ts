import type { CaptureType, ConnectionKey, EndedBy, Origin } from '../capture/types';

/**
 * What the capture builder is given: one unit of work (request, job or command) as recorded, unmasked and
 * unformatted. The live recorder and the OTLP collector both produce this; `buildCapture` is the only
 * place that turns it into a stored record. Times are epoch milliseconds (fractions allowed).
 */
export interface UnitInput {
  id: string;
  type: CaptureType;
  name: string;
  /** Response status code, `done`/`failed`, or the exit code, as a string. */
  status: string;
  parentId: string | null;
  traceId: string;
  linkedVia: string | null;
  rootSpanId: string | null;
  startedAt: number;
  endedAt: number;
  endedBy: EndedBy;
  label: string | null;
  tags: string[];
  jobId: string | null;
  meta: { pid: number; hostname: string; node: string; service: string; [key: string]: unknown };
  /** The incoming request, for `request` units. */
  request: IncomingRequestInput | null;
  /** Spans other than outgoing calls (the root, internal work, pools are derived from calls). */
  spans: SpanInput[];
  calls: CallInput[];
  /** Pools opened in this unit: number → the span that was active when `pool()` was called. */
  pools: PoolInput[];
  /** Finished calls past `max_rows` the recorder already counted and let go (see builder/fold.ts). */
  folded?: FoldedCallsInput;
  /**
   * A version stored while the unit still runs (the process's command capture: Recorder.checkpoint); a later one
   * with the same id replaces it. The store's thread is then handed its calls in parts (store/unitParts.ts).
   */
  partial?: boolean;
}

/** Running totals of calls past `max_rows`: counted in the summary, never rows. */
export interface FoldedCallsInput {
  count: number;
  /** Sum of their durations, ms. */
  ms: number;
  byHost: Record<string, number>;
  failed: number;
  /** The first `summary.errors` lines among them. */
  errors: string[];
  /** Time span of their calls per pool number, so pool spans still cover them. */
  pools: Record<number, { start: number; end: number }>;
}

export interface IncomingRequestInput {
  method: string;
  /** Full URL as received (masked by the builder). */
  url: string;
  route: string | null;
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  remoteAddress: string | null;
  /** The connection it came in on, from the server's side (HTTP/1.x over TCP). */
  connection?: ConnectionKey;
  /** The W3C trace context its span names (spans the collector received): a link key. */
  traceparent?: string;
}

export interface SpanInput {
  id: string;
  parentId: string | null;
  name: string;
  start: number;
  end: number;
  meta?: Record<string, unknown>;
}

export interface PoolInput {
  number: number;
  parentSpanId: string | null;
}

export interface ErrorInput {
  class: string;
  message: string;
  code: string | null;
  /** Outermost first. */
  causes: Array<{ class: string; message: string; code: string | null }>;
}

/** Phase timings measured for a call, in ms; absent phases were not reached. */
export interface TimingInput {
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

/** A body as recorded: the bytes kept (at most `max_body_bytes`) and the full size seen. */
export interface BodyInput {
  chunks: Buffer[];
  /** Every byte seen, kept or not. */
  size: number;
  truncated: boolean;
  /** Size after content decoding, counted while the body streamed when the kept bytes may not decode. */
  decodedSize?: number | undefined;
}

/** One outgoing call the app made (all redirect hops of one `fetch` merged into one). */
export interface CallInput {
  spanId: string;
  parentSpanId: string | null;
  method: string;
  /** The URL the app asked for (not the last redirect hop), unmasked. */
  url: string;
  requestHeaders: Record<string, string | string[] | number | undefined>;
  requestBody: BodyInput | null;
  status: number | null;
  responseHeaders: Record<string, string | string[] | undefined>;
  /** Trailers received after the body (HTTP/2: gRPC's status); missing when none came. */
  responseTrailers?: Record<string, string | string[] | undefined>;
  /** Wire bytes of the response body; decoded by the builder from `content-encoding` when needed. */
  responseBody: BodyInput | null;
  /** True when the client itself decodes content-encoding (fetch), so sizes count decoded bytes. */
  clientDecodes: boolean;
  start: number;
  /** Null when the unit ended before the call finished: duration runs to the unit's end. */
  end: number | null;
  timing: TimingInput | null;
  error: ErrorInput | null;
  pool: number | null;
  fake: boolean;
  /** `hit` when a cache in the client answered (undici's cache interceptor); missing otherwise. */
  cache?: 'hit';
  /** The connection the request went out on (HTTP/1.x over TCP): the key that links it to its server's capture. */
  connection?: ConnectionKey;
  /** The W3C trace context of the call as its span names it (spans the collector received): a link key. */
  traceparent?: string;
  origin: Origin | null;
}
