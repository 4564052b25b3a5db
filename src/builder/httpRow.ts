import type { Masker } from '../mask/Masker';
import type { ExceptionInfo, HttpRow, ResponseCaptureResult, FormattedField, Timing } from '../capture/types';
import type { ResolvedHttpLens } from '../config/types';
import type { CallInput } from './input';
import type { ResponseCaptureClass } from '../response/ResponseCapture';
import { urlFacts } from './urlFacts';
import { JsonCapture } from '../response/JsonCapture';
import { EventStreamCapture } from '../response/EventStreamCapture';
import { bodyKind } from '../mask/Masker';
import { binaryBodyBase64, bodyBytes, bytesToText, decodeContent, gzipStatedSize, headerValue, isBinaryBody } from './body';
import { payloadOf } from './payload';
import { jsonBodyCapture, storedOnce } from './jsonBody';
import { grpcStatus } from './grpcStatus';
import { grpcMethod } from './grpcMethod';
import { threadWork } from '../util/threadWork';
import { callValues, noteCallValues } from './callValues';

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** One HTTP row (docs/capture-format.md) from one recorded call. Pure: everything it needs is in its arguments. */
export function buildHttpRow(call: CallInput, unitStart: number, unitEnd: number, lens: ResolvedHttpLens): HttpRow {
  threadWork.rows++;
  const { masker } = lens;
  const method = call.method.toUpperCase();
  const facts = urlFacts(call.url, masker);
  const url = facts.url;
  const requestHeaders = masker.headers(call.requestHeaders);
  const requestType = headerValue(call.requestHeaders, 'content-type') ?? null;
  const requestBytes = bodyBytes(call.requestBody);
  const requestText = requestBytes.length ? bytesToText(requestBytes) : '';
  const requestTruncated = Boolean(call.requestBody?.truncated);
  let payload = requestTruncated ? null : payloadOf(requestText, requestType, masker);

  const hasResponse = call.status !== null;
  const responseHeaders = hasResponse ? masker.headers(call.responseHeaders) : {};
  const responseType = headerValue(call.responseHeaders, 'content-type') ?? null;
  const encoding = headerValue(call.responseHeaders, 'content-encoding');
  const wireCut = Boolean(call.responseBody?.truncated);
  const wireBytes = hasResponse && call.responseBody ? bodyBytes(call.responseBody) : null;
  const captureClass = hasResponse ? findCapture(lens, responseType) : null;
  // An event stream is read event by event: the kept part of a cut one still shows the events before the cut.
  const readsCutBody = captureClass === EVENT_STREAM_CAPTURE;
  // Decoded up to the cap, never further: the cap holds for the body as the app reads it (docs/capture-format.md). The
  // start of a longer body is decoded only for what reads it: response_body, or an event stream's capture.
  const decoded = wireBytes ? decodeContent(wireBytes, encoding, lens.max_body_bytes, wireCut, lens.bodies || readsCutBody) : null;
  const whole = decoded?.whole === true ? decoded.bytes : null;
  const responseTruncated = wireCut || decoded?.whole === false;
  const captured = whole ?? (readsCutBody ? (decoded?.bytes ?? null) : null);
  let responseBytes: number | null = null;
  if (hasResponse) {
    responseBytes = call.responseBody?.size ?? 0;
    // Clients that decode (fetch, axios, got, node-fetch) hand the app decoded bytes: the size the app saw.
    // A body too long to decode here was counted while it streamed (or, kept whole, states it: gzip);
    // one that cannot be decoded keeps its wire size.
    if (call.clientDecodes && encoding) {
      const stated = wireBytes && !wireCut && decoded?.whole === false ? gzipStatedSize(wireBytes, encoding) : null;
      responseBytes = whole?.length ?? call.responseBody?.decodedSize ?? stated ?? responseBytes;
    }
  }

  let responseCapture: ResponseCaptureResult | null = null;
  let formats: Record<string, FormattedField> | undefined;
  if (captureClass === JSON_CAPTURE && whole) {
    // The built-in JSON capture: the body kept once, parsed only when masking may change it.
    responseCapture = jsonCapture(bytesToText(whole), responseType, masker);
  } else if (captureClass && captured) {
    const text = bytesToText(captured);
    const result = runCapture(captureClass, {
      request: { method, url, headers: requestHeaders, payload },
      response: { status: call.status, headers: responseHeaders },
      body: text,
      ...(responseTruncated ? { truncated: true } : {}),
      config: { masker },
    });
    if (result) {
      responseCapture = { capture: captureClass.name, cards: masker.maskValue(result.cards), raw: masker.body(text, responseType) };
      if (bodyKind(responseType, text) === 'json') responseCapture = storedOnce(responseCapture);
      if (result.formats && Object.keys(result.formats).length) {
        // A capture's formatted text is masked by value too (a token in a GraphQL literal under any name).
        formats = Object.fromEntries(Object.entries(result.formats).map(([key, field]) => [key, { ...field, text: masker.text(field.text) }]));
        // The formatted text is the masked one (GraphQL literals): it stands in for the raw field.
        payload = withFormattedFields(payload, formats);
      }
    }
  }

  // The raw body (`bodies` on, no capture showed it): decoded as the app read it, else the wire bytes. A binary
  // one is kept as base64 beside a null `response_body`, so every reader of text sees no byte soup.
  const rawBody = lens.bodies && hasResponse && !responseCapture && call.responseBody ? (decoded?.bytes ?? wireBytes ?? Buffer.alloc(0)) : null;
  // Bytes that did not decode (an unknown coding) stay text as before: as base64 they would replay still encoded.
  const binaryBody = rawBody && decoded && isBinaryBody(responseType, rawBody) ? binaryBodyBase64(rawBody, (text) => masker.text(text)) : null;

  // Before masking: which answers' values this call sent, for the capture's `uses` (buildCapture).
  noteCallValues(
    call,
    callValues({
      url: call.url,
      requestHeaders: call.requestHeaders,
      requestText: requestTruncated ? '' : requestText,
      requestType,
      responseHeaders: hasResponse ? call.responseHeaders : {},
      responseText: whole && !isBinaryBody(responseType, whole) ? bytesToText(whole) : null,
      responseType,
    }),
  );

  const end = call.end ?? unitEnd;
  const grpc = hasResponse ? grpcStatus(call) : null;
  // From the masked URL: a path segment masking changed names no method.
  const grpcCall = grpcMethod({ url, requestHeaders: call.requestHeaders });
  const timing: Timing | null = call.fake || call.cache || !hasResponse || !call.timing ? null : roundTiming(call.timing);
  const row: HttpRow = {
    method,
    url,
    host: facts.host,
    endpoint: `${method} ${facts.target}`,
    request_headers: requestHeaders,
    request_bytes: call.requestBody?.size ?? 0,
    request_payload: payload,
    ...(formats ? { request_formats: formats } : {}),
    request_body: lens.bodies && requestText ? (formats && payload ? JSON.stringify(payload) : masker.body(requestText, requestType)) : null,
    status: call.status,
    response_headers: responseHeaders,
    response_bytes: responseBytes,
    response_capture: responseCapture,
    response_body: rawBody && binaryBody === null ? masker.body(bytesToText(rawBody), responseType) : null,
    ...(binaryBody !== null ? { response_body_base64: binaryBody } : {}),
    duration: round(Math.max(0, end - call.start)),
    timing,
    ...(grpcCall ? { grpc: grpcCall } : {}),
    ...(grpc ? { grpc_status: { ...grpc, message: grpc.message === null ? null : masker.text(grpc.message) } } : {}),
    failed: !hasResponse || (call.status ?? 0) >= 400 || (grpc !== null && grpc.code !== 0),
    exception: hasResponse ? null : exceptionOf(call, masker),
    pool: call.pool,
    fake: call.fake,
    time: round(Math.max(0, call.start - unitStart)),
    origin: call.origin,
  };
  if (call.cache) row.cache = call.cache;
  if (call.connection) row.connection = { ...call.connection };
  if (call.traceparent) row.traceparent = call.traceparent;
  if ((requestTruncated && (lens.bodies || payload === null)) || (responseTruncated && hasResponse)) row.truncated = true;
  return row;
}

function withFormattedFields(payload: HttpRow['request_payload'], formats: Record<string, FormattedField>): HttpRow['request_payload'] {
  if (!payload || Array.isArray(payload)) return payload;
  const out: Record<string, unknown> = { ...payload };
  for (const [key, field] of Object.entries(formats)) {
    if (key in out) out[key] = field.text;
  }
  return out;
}

const JSON_CAPTURE = JsonCapture as unknown as ResponseCaptureClass;
const EVENT_STREAM_CAPTURE = EventStreamCapture as unknown as ResponseCaptureClass;

function jsonCapture(text: string, contentType: string | null, masker: ResolvedHttpLens['masker']): ResponseCaptureResult {
  if (bodyKind(contentType, text) === 'json') return jsonBodyCapture(JSON_CAPTURE.name, text, masker);
  // JsonCapture mapped to another type (`text/plain`): the cards, and the raw text masked as its type says.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON after all: its secret-named pairs are masked as text, never kept as sent.
    return { capture: JSON_CAPTURE.name, cards: null, raw: masker.body(text, contentType) };
  }
  return { capture: JSON_CAPTURE.name, cards: masker.maskValue(parsed), raw: masker.body(text, contentType) };
}

/**
 * The capture class of each content type seen, per resolved list of response types (frozen at start): an app
 * answers with a handful of content types, and splitting each one and testing every matcher was 2.6 % of the
 * store thread's time per capture. Bounded: a server naming a new type per answer only refills it.
 */
const capturesByType = new WeakMap<ResolvedHttpLens['response_types'], Map<string, ResponseCaptureClass | null>>();
const TYPES_REMEMBERED = 64;

function findCapture(lens: ResolvedHttpLens, contentType: string | null): ResponseCaptureClass | null {
  if (!contentType) return null;
  let known = capturesByType.get(lens.response_types);
  if (!known) capturesByType.set(lens.response_types, (known = new Map()));
  let found = known.get(contentType);
  if (found === undefined) {
    const media = contentType.split(';')[0]!.trim().toLowerCase();
    found = lens.response_types.find((type) => type.matcher.test(media))?.capture ?? null;
    if (known.size >= TYPES_REMEMBERED) known.clear();
    known.set(contentType, found);
  }
  return found;
}

function runCapture(captureClass: ResponseCaptureClass, input: Parameters<NonNullable<ResponseCaptureClass['capture']>>[0]) {
  try {
    if (typeof captureClass.capture === 'function') return captureClass.capture(input);
    return new captureClass().capture(input);
  } catch {
    // A user's capture that throws costs its cards, not the row.
    return null;
  }
}

function exceptionOf(call: CallInput, masker: Masker): ExceptionInfo {
  const file = call.origin ? `${call.origin.file}:${call.origin.line}` : null;
  if (!call.error) return { class: 'Error', message: 'no response', code: null, file, previous: [] };
  // Messages quote what the app passed (`…includes credentials: http://user:pass@host/`): masked as text.
  return {
    class: call.error.class,
    message: masker.text(withCause(call.error.message, call.error.causes)),
    code: call.error.code,
    file,
    previous: call.error.causes.map((cause) => ({ ...cause, message: masker.text(cause.message) })),
  };
}

/**
 * The message a row states: the error's own, then its innermost cause where that says more. A client's own error
 * is often a wrapper that names nothing (undici's `fetch failed`, axios' `Network Error`); the reason
 * (`connect ECONNREFUSED 127.0.0.1:34999`, `other side closed`) is the innermost cause, and every view that shows
 * the message shows it. `previous` keeps the chain as thrown.
 */
export function withCause(message: string, causes: ReadonlyArray<{ message: string }>): string {
  const innermost = causes.length ? causes[causes.length - 1]!.message : '';
  if (!innermost || message.includes(innermost) || saysNothingMore(innermost, message)) return message || innermost;
  // The cause restates the message and adds to it (`… aborted` → `… aborted due to timeout`): the cause alone.
  if (saysNothingMore(message, innermost)) return innermost;
  return message ? `${message}: ${innermost}` : innermost;
}

const FILLER = new Set(['the', 'this', 'that', 'a', 'an']);

/** Whether every word of the cause is a word of the message already (`This operation was aborted` under `The operation was aborted`). */
function saysNothingMore(cause: string, message: string): boolean {
  const words = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word && !FILLER.has(word));
  const known = new Set(words(message));
  return words(cause).every((word) => known.has(word));
}

function roundTiming(timing: CallInput['timing'] & object): Timing {
  const out: Timing = { redirects: timing.redirects };
  for (const key of ['dns', 'connect', 'tls', 'wait', 'download', 'redirect'] as const) {
    const value = timing[key];
    if (typeof value === 'number' && Number.isFinite(value)) out[key] = round(Math.max(0, value));
  }
  if (timing.remote) out.remote = timing.remote;
  if (timing.protocol) out.protocol = timing.protocol;
  return out;
}
