import http from 'node:http';
import type { ResolvedConfig } from '../config/types';
import type { Store } from '../capture/Store';
import type { Logger } from '../util/logger';
import type { DecodedExport, OtlpSpan } from './model';
import type { ExportLimits, IdReader } from './normalize';
import type { OtlpResponse, WireFormat } from './responses';
import type { SpanGroup } from './SpanGroup';
import type { UnitAssemblerOptions } from './UnitAssembler';
import type { FoldPastCap } from './unitFromSpans';
import { newCaptureId } from '../capture/ids';
import { OtlpDecodeError, OtlpLimitError } from './model';
import { JSON_IDS, parseJsonExport } from './decodeJson';
import { PROTO_IDS, parseProtobufExport } from './decodeProtobuf';
import { normalizeSteps } from './normalize';
import { BodyError, readBody } from './readBody';
import { exportResponse, RpcCode, statusResponse } from './responses';
import { newSliceMeter, runInSlices } from './slices';
import { UnitAssembler } from './UnitAssembler';
import { unitSteps } from './unitFromSpans';
import { isExcepted } from '../config/except';
import { CaptureWriter, PUT_TIMEOUT_MS } from '../runtime/CaptureWriter';
import { bearerToken, tokenMatches } from '../util/accessToken';
import { shownHost } from '../util/listenAddress';
import { isAllowedHost, isAllowedOrigin } from '../util/hostGuard';

export interface CollectorOptions {
  store: Store;
  config: ResolvedConfig;
  logger: Logger;
  /** Largest body accepted, before and after decompression. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Most spans and attribute values one request may hold (413 past them). */
  limits?: Partial<ExportLimits>;
  /** When set, every request must carry it: `Authorization: Bearer <token>` or `?token=<token>`. */
  token?: string | null;
  /** Deadline of one store put, in ms (the capture writer's). */
  putTimeoutMs?: number;
  /** How often complete units are looked for, in ms. */
  sweepMs?: number;
  assembler?: Omit<UnitAssemblerOptions, 'onUnit'>;
}

export const TRACES_PATH = '/v1/traces';

/** The default bounds of one request: far above an SDK's batch (512 spans) or a Collector's (8192). */
export const DEFAULT_LIMITS: ExportLimits = { maxSpans: 50_000, maxValues: 1_000_000 };
/**
 * Work (spans, attribute values) done before the event loop is handed back: a few milliseconds, so a post
 * of 20,000 spans never holds a small request for long.
 */
export const SLICE_WORK = 4096;
/** Spans added to the assembler per slice. */
const ADD_CHUNK = 1024;
/** Spans of grouped units waiting to be turned into captures; past it a unit is dropped and counted. */
const MAX_HELD_SPANS = 200_000;

/**
 * `probe collect`: an OTLP/HTTP trace receiver. Bodies are decoded, spans grouped into units of work, each
 * unit turned into the builder's input and handed to the same bounded, deadlined `CaptureWriter` the
 * in-process recorder uses. Every step past parsing runs in slices that hand the event loop back, and is
 * linear in spans and attributes. Every input gets an OTLP answer; nothing a sender does can stop the server.
 */
export class CollectorServer {
  private readonly config: ResolvedConfig;
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly limits: ExportLimits;
  private readonly token: string | null;
  /** The bound host and the name printed for it, once listening (the Host and Origin checks compare with them). */
  private bound: { host: string; shown: string } | null = null;
  private readonly sweepMs: number;
  private readonly fold: FoldPastCap | null;
  private readonly assembler: UnitAssembler;
  private readonly writer: CaptureWriter;
  private readonly server: http.Server;
  /** Units grouped and waiting to be turned into captures, oldest first from `head`. */
  private groups: Array<SpanGroup | undefined> = [];
  private head = 0;
  private heldSpans = 0;
  private pumping: Promise<void> | null = null;
  private converting = false;
  private timer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  private readonly counts = { spans: 0, rejected: 0, failed: 0, excluded: 0, overflow: 0 };
  /** Turns handed back to the event loop and the most work done in one. */
  private readonly meter = newSliceMeter();

  constructor(options: CollectorOptions) {
    this.config = options.config;
    this.logger = options.logger;
    this.maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.token = options.token || null;
    this.sweepMs = options.sweepMs ?? 250;
    const lens = options.config.http;
    this.fold = lens ? { maxRows: lens.max_rows, masker: lens.masker } : null;
    this.assembler = new UnitAssembler({ ...options.assembler, onUnit: (group) => this.queueUnit(group) });
    this.writer = new CaptureWriter(options.config, options.store, options.logger, options.putTimeoutMs ?? PUT_TIMEOUT_MS);
    this.server = http.createServer((req, res) => {
      this.handle(req).then(
        (answer) => send(res, answer),
        (error: unknown) => {
          this.logger.warn('collector: unexpected failure answering a request', error);
          send(res, statusResponse(500, 13, 'internal error'));
        },
      );
    });
    // Slow senders must not hold sockets for ever; the OTel SDK exporters time out at 10 s themselves.
    this.server.requestTimeout = 60_000;
  }

  /**
   * Spans received and rejected; captures stored; units that failed to build, were kept out by `except`, or
   * were lost (writer queue full, store put failed or timed out, too many spans waiting).
   */
  get stats(): { spans: number; rejected: number; captures: number; failed: number; excluded: number; dropped: number } {
    const { spans, rejected, failed, excluded, overflow } = this.counts;
    return { spans, rejected, captures: this.writer.stored, failed, excluded, dropped: this.writer.dropped + overflow };
  }

  /** Work counters (tests assert on these, never on time): parent lookups while grouping, slices, most work per slice. */
  get work(): { parentLookups: number; slices: number; maxSliceWork: number } {
    const { slices, maxSliceWork, pending } = this.meter;
    return { parentLookups: this.assembler.parentLookups, slices, maxSliceWork: Math.max(maxSliceWork, pending) };
  }

  /** Grouped units not yet handed to the writer. */
  get heldUnits(): number {
    return this.groups.length - this.head + (this.converting ? 1 : 0);
  }

  /**
   * Starts listening; resolves with the base URL (`http://host:port`) as a sender would reach it: the bound
   * host, or for every interface the machine's first external IPv4 address (or its hostname).
   */
  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.timer = setInterval(() => this.safeSweep(), this.sweepMs);
    this.timer.unref();
    this.bound = { host, shown: shownHost(host) };
    return `http://${this.bound.shown}:${this.port}`;
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** Stops accepting, turns everything held into captures and waits for the store writes. Runs once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.timer) clearInterval(this.timer);
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        this.server.closeIdleConnections();
      });
      this.assembler.flush(Date.now());
      await this.pumping;
      await this.writer.shutdown();
    })();
    return this.closing;
  }

  /** Groups whatever is complete now (tests call it to skip the wait). */
  sweep(now = Date.now()): void {
    this.assembler.sweep(now);
  }

  /** Resolves when every unit grouped so far has been stored (or lost). */
  async idle(): Promise<void> {
    await this.pumping;
    await this.writer.flush();
  }

  private async handle(req: http.IncomingMessage): Promise<OtlpResponse> {
    const format = formatOf(req.headers['content-type']);
    // DNS rebinding: a page on another site that resolves to this address names its own site in Host and Origin.
    if (
      this.bound &&
      !(isAllowedHost(req.headers.host, this.bound.host, this.port, this.bound.shown) && isAllowedOrigin(req.headers.origin, this.bound.host, this.bound.shown))
    ) {
      req.resume();
      return statusResponse(403, RpcCode.PERMISSION_DENIED, 'Host or Origin not allowed: send to the address probe collect printed', format ?? 'json', {
        connection: 'close',
      });
    }
    if (this.token && !tokenMatches(bearerToken(req) ?? queryToken(req.url), this.token)) {
      req.resume();
      return statusResponse(
        401,
        RpcCode.UNAUTHENTICATED,
        'token required: send the header "Authorization: Bearer <token>" (OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<token>) or ?token=<token>',
        format ?? 'json',
        { 'www-authenticate': 'Bearer', connection: 'close' },
      );
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path !== TRACES_PATH) {
      req.resume();
      return statusResponse(404, RpcCode.NOT_FOUND, `no such endpoint: this receiver takes traces at POST ${TRACES_PATH}`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return statusResponse(405, RpcCode.INVALID_ARGUMENT, `use POST for ${TRACES_PATH}`, 'json', { allow: 'POST' });
    }
    if (!format) {
      req.resume();
      return statusResponse(415, RpcCode.INVALID_ARGUMENT, 'unsupported content-type: send application/json or application/x-protobuf');
    }
    let decoded: DecodedExport;
    try {
      const body = await readBody(req, this.maxBodyBytes);
      // Parsing is one step (bounded by the body limit); turning the result into spans runs in slices.
      const parsed = format === 'json' ? parseJsonExport(body) : parseProtobufExport(body);
      const ids: IdReader = format === 'json' ? JSON_IDS : PROTO_IDS;
      decoded = await runInSlices(normalizeSteps(parsed, ids, this.limits), SLICE_WORK, this.meter);
    } catch (error) {
      if (error instanceof BodyError) {
        const code = error.status === 413 ? RpcCode.RESOURCE_EXHAUSTED : RpcCode.INVALID_ARGUMENT;
        return statusResponse(error.status, code, error.message, format, error.status === 413 ? { connection: 'close' } : {});
      }
      if (error instanceof OtlpLimitError) return statusResponse(413, RpcCode.RESOURCE_EXHAUSTED, error.message, format);
      if (error instanceof OtlpDecodeError) return statusResponse(400, RpcCode.INVALID_ARGUMENT, error.message, format);
      // Anything else thrown while decoding (a stack overflow on absurd nesting) is still a bad payload.
      this.logger.debug('collector: payload rejected', error);
      return statusResponse(400, RpcCode.INVALID_ARGUMENT, `malformed payload: ${(error as Error).message}`, format);
    }
    this.counts.spans += decoded.spans.length;
    this.counts.rejected += decoded.rejected;
    await runInSlices(this.addSteps(decoded.spans), SLICE_WORK, this.meter);
    return exportResponse(format, decoded.rejected, decoded.rejectReason);
  }

  private *addSteps(spans: OtlpSpan[]): Generator<number, void> {
    // A trace still arriving is not settled between two slices, however long the machine takes.
    const traceIds = new Set(spans.map((span) => span.traceId));
    this.assembler.hold(traceIds);
    try {
      for (let i = 0; i < spans.length; i += ADD_CHUNK) {
        const chunk = spans.slice(i, i + ADD_CHUNK);
        this.assembler.add(chunk, Date.now());
        yield chunk.length;
      }
    } finally {
      this.assembler.release(traceIds, Date.now());
    }
  }

  private safeSweep(): void {
    try {
      this.assembler.sweep(Date.now());
    } catch (error) {
      this.logger.warn('collector: grouping spans failed', error);
    }
  }

  /** A grouped unit waits here to be turned into a capture, off the sweep that found it. */
  private queueUnit(group: SpanGroup): void {
    if (this.heldSpans + group.spans.length > MAX_HELD_SPANS) {
      this.counts.overflow++;
      this.logger.warnOnce('collector-held', `collector: over ${MAX_HELD_SPANS} spans wait to be stored; dropping units until they are`);
      return;
    }
    this.groups.push(group);
    this.heldSpans += group.spans.length;
    this.pumping ??= this.pump();
  }

  private async pump(): Promise<void> {
    // Started from queueUnit(): the first turn is a later one, so `pumping` is set before this can finish.
    await Promise.resolve();
    try {
      while (this.head < this.groups.length) {
        const group = this.groups[this.head]!;
        this.groups[this.head++] = undefined;
        if (this.head > 1024 && this.head * 2 > this.groups.length) {
          this.groups = this.groups.slice(this.head);
          this.head = 0;
        }
        this.heldSpans -= group.spans.length;
        this.converting = true;
        await this.write(group);
        this.converting = false;
      }
    } finally {
      this.pumping = null;
    }
  }

  private async write(group: SpanGroup): Promise<void> {
    try {
      const start = group.root?.start ?? group.spans[0]?.start ?? Date.now();
      const unit = await runInSlices(unitSteps(group, newCaptureId(Math.floor(start)), this.config.service, this.fold), SLICE_WORK, this.meter);
      if (isExcepted(this.config.except, unit.name)) {
        this.counts.excluded++;
        return;
      }
      this.writer.enqueue(unit);
    } catch (error) {
      this.counts.failed++;
      this.logger.warnOnce('collector-build', 'collector: could not build a capture from spans', error);
    }
  }
}

/** `?token=` of a request target. */
function queryToken(target: string | undefined): string | null {
  const query = (target ?? '').split('?')[1];
  return query === undefined ? null : new URLSearchParams(query).get('token');
}

function formatOf(contentType: string | undefined): WireFormat | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return null;
}

function send(res: http.ServerResponse, answer: OtlpResponse): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(answer.body);
}
