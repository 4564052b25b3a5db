import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Capture } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import type { Store } from '../store/Store';
import type { Logger } from '../util/logger';
import type { DecodedExport } from './model';
import type { OtlpResponse, WireFormat } from './responses';
import type { SpanGroup } from './SpanGroup';
import type { UnitAssemblerOptions } from './UnitAssembler';
import { buildCapture } from '../builder/buildCapture';
import { newCaptureId } from '../capture/ids';
import { OtlpDecodeError } from './model';
import { decodeJsonExport } from './decodeJson';
import { decodeProtobufExport } from './decodeProtobuf';
import { BodyError, readBody } from './readBody';
import { exportResponse, RpcCode, statusResponse } from './responses';
import { UnitAssembler } from './UnitAssembler';
import { unitFromSpans } from './unitFromSpans';
import { isExcepted } from '../config/except';

export interface CollectorOptions {
  store: Store;
  config: ResolvedConfig;
  logger: Logger;
  /** Largest body accepted, before and after decompression. Default 16 MiB. */
  maxBodyBytes?: number;
  /** How often complete units are looked for, in ms. */
  sweepMs?: number;
  assembler?: Omit<UnitAssemblerOptions, 'onUnit'>;
}

export const TRACES_PATH = '/v1/traces';

/**
 * `probe collect`: an OTLP/HTTP trace receiver. Bodies are decoded, spans grouped into units of work, each
 * unit built into a capture by the same builder the in-process recorder uses, and written to the store.
 * Every input gets an OTLP answer; nothing a sender does can stop the server.
 */
export class CollectorServer {
  private readonly store: Store;
  private readonly config: ResolvedConfig;
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly sweepMs: number;
  private readonly assembler: UnitAssembler;
  private readonly server: http.Server;
  private readonly writes = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  /** Captures written and units that failed to build or store, for the log line at exit. */
  readonly stats = { spans: 0, rejected: 0, captures: 0, failed: 0, excluded: 0 };

  constructor(options: CollectorOptions) {
    this.store = options.store;
    this.config = options.config;
    this.logger = options.logger;
    this.maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    this.sweepMs = options.sweepMs ?? 250;
    this.assembler = new UnitAssembler({ ...options.assembler, onUnit: (group) => this.write(group) });
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

  /** Starts listening; resolves with the base URL (`http://host:port`). */
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
    const address = this.server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${shown}:${address.port}`;
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
      await Promise.allSettled([...this.writes]);
    })();
    return this.closing;
  }

  /** Groups whatever is complete now (tests call it to skip the wait). */
  sweep(now = Date.now()): void {
    this.assembler.sweep(now);
  }

  /** Resolves when every store write started so far has finished. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  private async handle(req: http.IncomingMessage): Promise<OtlpResponse> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== TRACES_PATH) {
      req.resume();
      return statusResponse(404, RpcCode.NOT_FOUND, `no such endpoint: this receiver takes traces at POST ${TRACES_PATH}`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return statusResponse(405, RpcCode.INVALID_ARGUMENT, `use POST for ${TRACES_PATH}`, 'json', { allow: 'POST' });
    }
    const format = formatOf(req.headers['content-type']);
    if (!format) {
      req.resume();
      return statusResponse(415, RpcCode.INVALID_ARGUMENT, 'unsupported content-type: send application/json or application/x-protobuf');
    }
    let decoded: DecodedExport;
    try {
      const body = await readBody(req, this.maxBodyBytes);
      decoded = format === 'json' ? decodeJsonExport(body) : decodeProtobufExport(body);
    } catch (error) {
      if (error instanceof BodyError) {
        const code = error.status === 413 ? RpcCode.RESOURCE_EXHAUSTED : RpcCode.INVALID_ARGUMENT;
        return statusResponse(error.status, code, error.message, format, error.status === 413 ? { connection: 'close' } : {});
      }
      if (error instanceof OtlpDecodeError) return statusResponse(400, RpcCode.INVALID_ARGUMENT, error.message, format);
      // Anything else thrown while decoding (a stack overflow on absurd nesting) is still a bad payload.
      this.logger.debug('collector: payload rejected', error);
      return statusResponse(400, RpcCode.INVALID_ARGUMENT, `malformed payload: ${(error as Error).message}`, format);
    }
    this.stats.spans += decoded.spans.length;
    this.stats.rejected += decoded.rejected;
    this.assembler.add(decoded.spans, Date.now());
    return exportResponse(format, decoded.rejected, decoded.rejectReason);
  }

  private safeSweep(): void {
    try {
      this.assembler.sweep(Date.now());
    } catch (error) {
      this.logger.warn('collector: grouping spans failed', error);
    }
  }

  private write(group: SpanGroup): void {
    let capture: Capture;
    try {
      const start = group.root?.start ?? group.spans[0]?.start ?? Date.now();
      const unit = unitFromSpans(group, newCaptureId(Math.floor(start)), this.config.service);
      if (isExcepted(this.config.except, unit.name)) {
        this.stats.excluded++;
        return;
      }
      capture = buildCapture(unit, this.config);
    } catch (error) {
      this.stats.failed++;
      this.logger.warnOnce('collector-build', 'collector: could not build a capture from spans', error);
      return;
    }
    const write = this.store.put(capture).then(
      () => {
        this.stats.captures++;
      },
      (error: unknown) => {
        this.stats.failed++;
        this.logger.warnOnce('collector-put', 'collector: could not write a capture to the store', error);
      },
    );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }
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
