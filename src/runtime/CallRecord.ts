import type { CallInput, ErrorInput, TimingInput } from '../builder/input';
import type { EntryStack } from './entry';
import { entryOrigin } from './entry';
import { AGENTS_OWN, readStack } from './origin';
import type { Origin } from '../capture/types';
import { BodyTap } from './BodyTap';
import { claimSocket, phasesOf, type SocketTimes } from './sockets';
import { now } from './clock';

/**
 * The live state of one outgoing call, filled in by the lens as the client library reports progress.
 * Every setter is cheap; turning it into builder input happens after the unit of work ends.
 */
export class CallRecord {
  spanId = '';
  parentSpanId: string | null = null;
  method = 'GET';
  url = '';
  requestHeaders: CallInput['requestHeaders'] = {};
  requestBody: BodyTap | null = null;
  status: number | null = null;
  responseHeaders: CallInput['responseHeaders'] = {};
  responseBody: BodyTap | null = null;
  clientDecodes = false;
  readonly start: number;
  end: number | null = null;
  error: ErrorInput | null = null;
  pool: number | null = null;
  fake = false;
  /** `hit`: a cache in the client (undici's cache interceptor) answered; no request went out. */
  cache: 'hit' | null = null;
  /** Raw call sites of the app's stack at the call, resolved to an origin later, off the hot path. */
  stack: NodeJS.CallSite[] | null = null;
  /** The app's stack where it entered the client library that made this call (see entry.ts): the fallback. */
  entry: EntryStack | null = null;
  origin: Origin | null = null;
  /** Made by an APM agent for itself (its stack passed through the agent's own senders): never a row, nor counted. */
  byAgent = false;

  // Timing marks (epoch ms).
  socket: object | undefined;
  sentAt: number | null = null;
  headersAt: number | null = null;
  hopStart: number;
  redirects = 0;
  remote: string | undefined;
  protocol: string | undefined;
  connection: SocketTimes | null = null;

  constructor(
    readonly maxBodyBytes: number,
    start = now(),
  ) {
    this.start = start;
    this.hopStart = start;
  }

  /**
   * Reads the call sites once: whether an agent made the call, else (with origins on) its origin, from its own
   * stack or, with no app frame there (the library started it after an async hop), where the app entered the
   * library. The call sites are let go. Again later: nothing more to read.
   */
  settle(root: string, withOrigin: boolean): void {
    if (this.stack) {
      const read = readStack(this.stack, root, withOrigin);
      if (read === AGENTS_OWN) this.byAgent = true;
      else if (read && !this.origin) this.origin = read;
    }
    if (withOrigin && !this.byAgent && !this.origin) this.origin = entryOrigin(this.entry, root);
    this.stack = null;
    this.entry = null;
  }

  /** The connection is known: claim its phases (a reused keep-alive socket has none). */
  useSocket(socket: object | undefined, remote?: string, protocol?: string): void {
    if (this.socket === socket) return;
    this.socket = socket;
    this.connection = claimSocket(socket);
    if (remote) this.remote = remote;
    if (protocol) this.protocol = protocol;
  }

  markSent(): void {
    this.sentAt = now();
  }

  markHeaders(status: number, headers: CallInput['responseHeaders']): void {
    this.headersAt = now();
    this.status = status;
    this.responseHeaders = headers;
  }

  responseTap(): BodyTap {
    this.responseBody ??= new BodyTap(this.maxBodyBytes);
    return this.responseBody;
  }

  requestTap(): BodyTap {
    this.requestBody ??= new BodyTap(this.maxBodyBytes);
    return this.requestBody;
  }

  /** Ended for good: nothing more will be recorded on it (a lens whose call may go on overrides it: FetchCall). */
  get done(): boolean {
    return this.end !== null;
  }

  finish(at = now()): void {
    if (this.end === null) {
      this.end = at;
      this.responseBody?.end();
    }
  }

  fail(error: ErrorInput, at = now()): void {
    this.error = error;
    this.finish(at);
  }

  timing(): TimingInput | null {
    if (this.fake || this.cache) return null;
    const timing: TimingInput = { redirects: this.redirects, ...phasesOf(this.connection) };
    if (this.headersAt !== null) {
      const sent = this.sentAt ?? this.hopStart;
      timing.wait = this.headersAt - sent;
      if (this.end !== null) timing.download = this.end - this.headersAt;
    }
    if (this.redirects > 0) timing.redirect = this.hopStart - this.start;
    if (this.remote) timing.remote = this.remote;
    if (this.protocol) timing.protocol = this.protocol;
    return timing;
  }

  toInput(): CallInput {
    return {
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      method: this.method,
      url: this.url,
      requestHeaders: this.requestHeaders,
      requestBody: this.requestBody?.toInput() ?? null,
      status: this.status,
      responseHeaders: this.responseHeaders,
      responseBody: this.status === null ? null : (this.responseBody ?? new BodyTap(0)).toInput(),
      clientDecodes: this.clientDecodes,
      start: this.start,
      end: this.end,
      timing: this.timing(),
      error: this.error,
      pool: this.pool,
      fake: this.fake,
      ...(this.cache ? { cache: this.cache } : {}),
      origin: this.origin,
    };
  }
}
