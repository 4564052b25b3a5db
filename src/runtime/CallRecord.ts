import type { CallInput, ErrorInput, TimingInput } from '../builder/input';
import type { EntryStack } from '../origin/entry';
import { entryOrigin } from '../origin/entry';
import { AGENTS_OWN, readStack } from '../origin/origin';
import { learnFromStack, learnWrapper } from '../origin/hops/learnedEntries';
import type { ConnectionKey, Origin } from '../capture/types';
import { BodyTap, COUNTED_TAP } from './BodyTap';
import { claimSocket, phasesOf, type SocketTimes } from './sockets';
import { now } from './clock';
import type { Endpoint } from './ownServers';

type Headers = CallInput['requestHeaders'];

/** What is known of a call when it starts (see Recorder.beginCall, the one place that starts one). */
export interface CallStart {
  method: string;
  url: string;
  spanId?: string;
  parentSpanId?: string | null;
  requestHeaders?: Headers;
  clientDecodes?: boolean;
  pool?: number | null;
  /** Raw call sites of the app's stack at the call, read later off the hot path (see settle). */
  stack?: NodeJS.CallSite[] | null;
  /** The app's stack where it entered the client library that made this call (see entry.ts): the fallback. */
  entry?: EntryStack | null;
}

/**
 * The live state of one outgoing call. Its state is its own: the lens reports what the client library did
 * through the methods below, the rest of Probe reads it. Every method is cheap; turning it into builder input
 * happens after the unit of work ends.
 */
export class CallRecord {
  private _spanId = '';
  private _parentSpanId: string | null = null;
  private _method = 'GET';
  private _url = '';
  private _requestHeaders: Headers = {};
  private _requestBody: BodyTap | null = null;
  private _status: number | null = null;
  private _responseHeaders: CallInput['responseHeaders'] = {};
  private _responseTrailers: CallInput['responseTrailers'] = undefined;
  private _responseBody: BodyTap | null = null;
  private _clientDecodes = false;
  private _end: number | null = null;
  private _error: ErrorInput | null = null;
  private _pool: number | null = null;
  private _fake = false;
  private _cache: 'hit' | null = null;
  private stack: NodeJS.CallSite[] | null = null;
  private entry: EntryStack | null = null;
  private _origin: Origin | null = null;
  /** The call's input once nothing in it changes any more (see toInput). */
  private input: CallInput | null = null;
  private _byAgent = false;
  private _counted = false;

  // Timing marks (epoch ms).
  private socket: object | undefined;
  private sentAt: number | null = null;
  private headersAt: number | null = null;
  private hopStart: number;
  private redirects = 0;
  private remote: string | undefined;
  private _connectionKey: ConnectionKey | null = null;
  private socketPath: string | undefined;
  private protocol: string | undefined;
  private connection: SocketTimes | null = null;

  constructor(
    readonly maxBodyBytes: number,
    readonly start = now(),
  ) {
    this.hopStart = start;
  }

  get spanId(): string {
    return this._spanId;
  }
  get parentSpanId(): string | null {
    return this._parentSpanId;
  }
  get method(): string {
    return this._method;
  }
  get url(): string {
    return this._url;
  }
  /** The headers as sent; fetch adds the content type its body implies to this object (see fetch.ts). */
  get requestHeaders(): Headers {
    return this._requestHeaders;
  }
  get responseHeaders(): CallInput['responseHeaders'] {
    return this._responseHeaders;
  }

  get responseTrailers(): CallInput['responseTrailers'] {
    return this._responseTrailers;
  }

  get status(): number | null {
    return this._status;
  }
  get clientDecodes(): boolean {
    return this._clientDecodes;
  }
  get end(): number | null {
    return this._end;
  }
  get error(): ErrorInput | null {
    return this._error;
  }
  get pool(): number | null {
    return this._pool;
  }
  get fake(): boolean {
    return this._fake;
  }
  /** `hit`: a cache in the client (undici's cache interceptor) answered; no request went out. */
  get cache(): 'hit' | null {
    return this._cache;
  }
  get origin(): Origin | null {
    return this._origin;
  }
  /** Made by an APM agent for itself (its stack passed through the agent's own senders): never a row, nor counted. */
  get byAgent(): boolean {
    return this._byAgent;
  }
  /** Call sites still to read (see settle). */
  get hasCallSites(): boolean {
    return this.stack !== null || this.entry !== null;
  }

  /** Where the app made the call, while not read yet: its entry into the client library, else its own stack. */
  callSites(): EntryStack | null {
    return this.entry ?? (this.stack ? { sites: this.stack } : null);
  }

  /** The facts known when the call starts; only Recorder.beginCall calls this. */
  begin(facts: CallStart): void {
    this._method = facts.method;
    this._url = facts.url;
    if (facts.spanId) this._spanId = facts.spanId;
    if (facts.parentSpanId) this._parentSpanId = facts.parentSpanId;
    if (facts.requestHeaders) this._requestHeaders = facts.requestHeaders;
    if (facts.clientDecodes !== undefined) this._clientDecodes = facts.clientDecodes;
    if (facts.pool !== undefined) this._pool = facts.pool;
    if (facts.stack !== undefined) this.stack = facts.stack;
    if (facts.entry !== undefined) this.entry = facts.entry;
  }

  /** The span (or an id of Probe's own, for a call no instrumentation saw) the row is linked by. */
  identify(spanId: string, parentSpanId?: string | null): void {
    this._spanId = spanId;
    if (parentSpanId !== undefined) this._parentSpanId = parentSpanId;
  }

  /** The request's method and headers once the client has them final (sent, or the fetch's first undici request). */
  setRequest(headers: Headers, method?: string): void {
    this._requestHeaders = headers;
    if (method !== undefined) this._method = method;
  }

  /** A fake (MockAgent, msw, nock) answered: no network timing. */
  markFake(): void {
    this._fake = true;
  }

  /** A cache in the client answered: no network timing. */
  markCacheHit(): void {
    this._cache = 'hit';
  }

  /**
   * Reads the call sites once: whether an agent made the call, else (with origins on) its origin, from its own
   * stack or, with no app frame there (the library started it after an async hop), where the app entered the
   * library. The call sites are let go, even when reading them threw. Again later: nothing more to read.
   */
  settle(root: string, withOrigin: boolean): void {
    // Read already, or none taken (a call only counted): nothing to do, on every sweep and version that asks.
    if (this.stack === null && this.entry === null) return;
    try {
      if (this.stack) {
        const read = readStack(this.stack, root, withOrigin);
        if (read === AGENTS_OWN) this._byAgent = true;
        else if (read && !this._origin) {
          this._origin = read;
          // The app's line, through a learned library: the package the app entered it by is learned too.
          if (withOrigin) learnWrapper(this.stack, root);
        }
      }
      if (withOrigin && !this._byAgent && !this._origin) {
        this._origin = entryOrigin(this.entry, root);
        // No app frame and no entry: the library hopped where V8 does not link; learned for its next calls.
        if (!this._origin && !this.entry) learnFromStack(this.stack, root);
      }
    } finally {
      this.stack = null;
      this.entry = null;
    }
  }

  /**
   * The connection this call's request went out on and its order there (runtime/connections.ts), the first one
   * seen: a fetch's redirect hops keep the connection of the URL the app asked for.
   */
  noteConnection(connection: ConnectionKey | null): void {
    if (connection && !this._connectionKey) this._connectionKey = connection;
  }

  /**
   * The `traceparent` the request went out with, when the app's own propagation added it after Probe read the
   * headers (instrumentation-undici adds it to undici's request once made): the row's headers are those sent.
   */
  noteSentTraceparent(value: string): void {
    if (this._requestHeaders.traceparent === undefined) this._requestHeaders = { ...this._requestHeaders, traceparent: value };
  }

  /** The connection is known: claim its phases (a reused keep-alive socket has none). */
  useSocket(socket: object | undefined, remote?: string, protocol?: string): void {
    if (this.socket === socket) return;
    this.socket = socket;
    this.connectedTo(remote, protocol, claimSocket(socket));
  }

  /** The call goes over a unix socket (node:http's `socketPath`): its target, where a socket has no remote address. */
  viaSocketPath(socketPath: string): void {
    this.socketPath = socketPath;
  }

  /** Where the call connected: a unix socket's path, or the TCP peer (null: not connected, or not known). */
  get target(): Endpoint | null {
    if (this.socketPath) return { kind: 'unix', at: this.socketPath };
    const match = this.remote ? /^(.*):(\d+)$/.exec(this.remote) : null;
    return match ? { kind: 'tcp', host: match[1]!, at: match[2]! } : null;
  }

  /** Where the call went and how; `phases` are the connection's own (left out: not known, as on a reused one). */
  connectedTo(remote: string | undefined, protocol: string | undefined, phases?: SocketTimes | null): void {
    if (phases !== undefined) this.connection = phases;
    if (remote) this.remote = remote;
    if (protocol) this.protocol = protocol;
  }

  markSent(): void {
    this.sentAt = now();
  }

  markHeaders(status: number, headers: CallInput['responseHeaders']): void {
    this.headersAt = now();
    this._status = status;
    this._responseHeaders = headers;
  }

  /** Trailers after the body (HTTP/2), which may come after the body's end: part of the call's data still. */
  markTrailers(trailers: NonNullable<CallInput['responseTrailers']>): void {
    if (Object.keys(trailers).length === 0) return;
    this.input = null;
    this._responseTrailers = trailers;
  }

  /**
   * Only counted: the call started past its unit's row cap, so it will be folded into the unit's totals and never be
   * a row (Recorder.beginCall decides). Its bodies are not kept; it has no call sites to read.
   */
  countOnly(): void {
    this._counted = true;
    this._responseBody = COUNTED_TAP;
    this._requestBody = COUNTED_TAP;
  }

  get counted(): boolean {
    return this._counted;
  }

  responseTap(): BodyTap {
    this._responseBody ??= new BodyTap(this.maxBodyBytes);
    return this._responseBody;
  }

  /** A response body read apart from the exchange (a fake's, from a clone of its response). */
  setResponseBody(tap: BodyTap): void {
    if (!this._counted) this._responseBody = tap;
  }

  /** True when the response body's decoded size is still being counted; `counted` runs once it is. */
  whenBodyCounted(counted: () => void): boolean {
    return this._responseBody?.whenCounted(counted) ?? false;
  }

  requestTap(): BodyTap {
    this._requestBody ??= new BodyTap(this.maxBodyBytes);
    return this._requestBody;
  }

  /** Ended for good: nothing more will be recorded on it (a lens whose call may go on overrides it: FetchCall). */
  get done(): boolean {
    return this._end !== null;
  }

  finish(at = now()): void {
    if (this._end === null) {
      this._end = at;
      this._responseBody?.end();
    }
  }

  fail(error: ErrorInput, at = now()): void {
    // A failure told after the end (a body that broke once the call was done) is part of the call's data.
    this.input = null;
    this._error = error;
    this.finish(at);
  }

  /** Failed with no response to keep: a response that had begun is dropped (the row is a call without one). */
  failWithoutResponse(error: ErrorInput, at = now()): void {
    this._status = null;
    this.fail(error, at);
  }

  /**
   * A new exchange of the same call (a redirect a client follows inside one call): the response state starts over,
   * the time since the call began counts as redirect time.
   */
  protected restartExchange(): void {
    if (this.headersAt !== null || this._status !== null) this.redirects++;
    this.hopStart = now();
    this._status = null;
    this._responseHeaders = {};
    this._responseTrailers = undefined;
    this._responseBody = this._counted ? COUNTED_TAP : null;
    this.headersAt = null;
    this.sentAt = null;
    this._end = null;
    this.socket = undefined;
    this.connection = null;
  }

  timing(): TimingInput | null {
    if (this._fake || this._cache) return null;
    const timing: TimingInput = { redirects: this.redirects, ...phasesOf(this.connection) };
    if (this.headersAt !== null) {
      const sent = this.sentAt ?? this.hopStart;
      timing.wait = this.headersAt - sent;
      if (this._end !== null) timing.download = this._end - this.headersAt;
    }
    if (this.redirects > 0) timing.redirect = this.hopStart - this.start;
    if (this.remote) timing.remote = this.remote;
    if (this.protocol) timing.protocol = this.protocol;
    return timing;
  }

  /**
   * The call's plain data for the builder. Once the call is done and its decoded size known, nothing in it changes:
   * the same object is given every time, so a unit stored while it runs (the process's command capture, every
   * second) neither rebuilds it nor hands its bodies to the store's thread twice (store/unitParts.ts tells
   * calls handed over before by this identity).
   */
  toInput(): CallInput {
    if (this.input) return this.input;
    const input = this.makeInput();
    // Not while its call sites wait to be read (the origin), nor while a decoded size is being counted.
    if (this.done && !this.hasCallSites && !this._responseBody?.settling && !this._requestBody?.settling) this.input = input;
    return input;
  }

  private makeInput(): CallInput {
    return {
      spanId: this._spanId,
      parentSpanId: this._parentSpanId,
      method: this._method,
      url: this._url,
      requestHeaders: this._requestHeaders,
      requestBody: this._requestBody?.toInput() ?? null,
      status: this._status,
      responseHeaders: this._responseHeaders,
      ...(this._responseTrailers ? { responseTrailers: this._responseTrailers } : {}),
      responseBody: this._status === null ? null : (this._responseBody ?? new BodyTap(0)).toInput(),
      clientDecodes: this._clientDecodes,
      start: this.start,
      end: this._end,
      timing: this.timing(),
      error: this._error,
      pool: this._pool,
      fake: this._fake,
      ...(this._cache ? { cache: this._cache } : {}),
      ...(this._connectionKey && !this._fake ? { connection: this._connectionKey } : {}),
      origin: this._origin,
    };
  }
}
