import type { CallRecord } from '../runtime/CallRecord';
import { patchMethod } from '../util/patches';
import { undiciResponseHeaders } from './headers';

/** The call record of an undici request the lens follows, kept on the request object itself. */
export const RECORD = Symbol('probe.undici.record');

type Upgrade = (statusCode: number, headers: unknown, socket: unknown, ...rest: unknown[]) => unknown;

/** The fields of undici's request object (lib/core/request.js) the lens reads or observes. */
export interface TrackedRequest {
  origin: string;
  method: string;
  path: string;
  headers: unknown;
  onBodySent?: (chunk: unknown) => unknown;
  onData?: (chunk: unknown) => unknown;
  onResponseData?: (chunk: unknown) => unknown;
  onUpgrade?: Upgrade;
  [RECORD]?: CallRecord;
}

type Kind = 'request' | 'response' | 'upgrade';
type Method = (this: TrackedRequest, ...args: unknown[]) => unknown;
const KIND = Symbol('probe.undici.tap');

const WHY =
  "undici reports a request's body bytes and a protocol switch only through the request's own handler methods: body chunks on no diagnostics channel, and a 101 answer on none in undici 6 and Node 24's bundled 7 (https://github.com/nodejs/undici/blob/main/lib/core/request.js, https://github.com/nodejs/undici/blob/main/docs/docs/api/DiagnosticsChannel.md)";

/** The record of a request the lens follows (a message's `request`), if any. */
export function recordOf(request: unknown): CallRecord | undefined {
  return (request as TrackedRequest | undefined)?.[RECORD];
}

/**
 * Follows a request's body bytes and protocol switch. undici's request class defines the handler methods once,
 * on its prototype: that method is observed for every request of the class, doing something only for a request
 * that carries a record, so a call pays no closure. A method set on the instance (a subclass's, a wrapper's) is
 * observed on the instance.
 */
export function observeRequest(request: TrackedRequest): void {
  observe(request, 'onBodySent', 'request');
  // undici 8 renamed the request's `onData` to `onResponseData` (the handler API of undici 7 made the request's
  // own): https://github.com/nodejs/undici/blob/v8.0.0/lib/core/request.js (Node 26's global fetch is undici 8).
  observe(request, typeof request.onData === 'function' ? 'onData' : 'onResponseData', 'response');
  observe(request, 'onUpgrade', 'upgrade');
}

function observe(request: TrackedRequest, name: 'onBodySent' | 'onData' | 'onResponseData' | 'onUpgrade', kind: Kind): void {
  const method = request[name] as (Method & { [KIND]?: Kind }) | undefined;
  if (typeof method !== 'function' || method[KIND] === kind) return;
  let owner: object | null = request;
  if (!Object.prototype.hasOwnProperty.call(request, name)) {
    owner = Object.getPrototypeOf(request) as object | null;
    while (owner && !Object.prototype.hasOwnProperty.call(owner, name)) owner = Object.getPrototypeOf(owner) as object | null;
  }
  if (!owner) return;
  if (owner === request) {
    // Lives and dies with the request: not on the ledger.
    (request as unknown as Record<string, Method>)[name] = observer(method, kind);
    return;
  }
  // Weak: a copy of undici loaded in a realm that goes away (a test runner's per-file context) takes its class along.
  patchMethod(owner as Record<string, Method>, name, `undici request ${name}`, WHY, (original) => observer(original, kind), { weak: true });
}

function observer(original: Method, kind: Kind): Method {
  const observing = function (this: TrackedRequest) {
    const record = this?.[RECORD];
    if (record) {
      try {
        if (kind === 'upgrade') upgraded(record, arguments[0] as number, arguments[1], arguments[2]);
        else (kind === 'request' ? record.requestTap() : record.responseTap()).add(arguments[0]);
      } catch {
        // observing must never break the transfer
      }
    }
    // The original's return value keeps back-pressure intact; its arguments go on as they came.
    return original.apply(this, arguments as unknown as unknown[]);
  } as Method & { [KIND]?: Kind };
  observing[KIND] = kind;
  return observing;
}

/**
 * A protocol switch (a WebSocket's handshake, 101) is the call's answer: undici 6 and Node 24's bundled 7.29 report
 * it on no diagnostics channel (no `headers`, no `trailers`), only through the request's own `onUpgrade`
 * (later releases publish both there).
 */
function upgraded(record: CallRecord, statusCode: number, headers: unknown, socket: unknown): void {
  if (record.status === null) {
    const s = socket as { remoteAddress?: string; remotePort?: number; alpnProtocol?: string | false } | undefined;
    if (s?.remoteAddress) record.useSocket(socket as object, `${s.remoteAddress}:${s.remotePort}`, s.alpnProtocol === 'h2' ? 'HTTP/2' : 'HTTP/1.1');
    record.markHeaders(statusCode, undiciResponseHeaders(headers));
  }
  record.finish();
}
