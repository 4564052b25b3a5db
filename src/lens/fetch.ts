import { randomBytes } from 'node:crypto';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import { BodyTap } from '../runtime/BodyTap';
import { FETCH_STACK_LIMIT } from '../origin/origin';
import { errorInput } from '../runtime/errors';
import { FetchCall } from './FetchCall';
import { fetchScope } from './fetchScope';
import { fetchHeaders } from './headers';
import { patchMethod } from '../util/patches';
import { fetchHeaderOf, isTelemetryTraffic } from './telemetry';
import { watchFetchFakes } from './fakes';
import { holdStreamBody, mockAgentAnswers, readFakeResponse, readSettledBody, type HeldBody } from './fakeBody';
import { noteForwarded } from './fetchLayer';

const WRAPPED = Symbol.for('probe.fetch.original');

/**
 * Wraps global `fetch` so one app call is one row: redirect hops (each its own undici request) fold into
 * the record started here; a call that never reaches undici (MockAgent, a bad port, an aborted signal)
 * is still recorded. The app gets the original promise, untouched.
 */
export function wrapFetch(recorder: Recorder, maxBodyBytes: number, logger: Logger): () => void {
  const original = globalThis.fetch as typeof fetch & { [WRAPPED]?: typeof fetch };
  if (typeof original !== 'function' || original[WRAPPED]) return () => {};
  const probeFetch = recordingFetch(original, recorder, maxBodyBytes, logger);
  // One row per app call needs the call itself: undici reports each redirect hop as its own request, and a
  // call a fake answers or that fails before dispatch reaches no channel (https://github.com/nodejs/undici/blob/main/docs/docs/api/DiagnosticsChannel.md).
  const undo = patchMethod(globalThis, 'fetch', 'globalThis.fetch', 'redirect hops folded into one row; calls that never reach undici', () => probeFetch);
  const unwatch = watchFetchFakes((fake) => recordingFetch(fake, recorder, maxBodyBytes, logger, true), logger);
  return () => {
    unwatch();
    undo?.();
  };
}

/**
 * A fetch that records each app call around `original`. When it runs inside another recorded fetch call
 * (msw/nock's fetch passing a request through to the real one), the outer call is the app's: no second row.
 * `fake` marks a fake's own fetch (msw, nock), which reads stream bodies itself.
 */
export function recordingFetch(original: typeof fetch, recorder: Recorder, maxBodyBytes: number, logger: Logger, fake = false): typeof fetch {
  // Each promise handed back goes through noteForwarded: a caching layer above (Next.js's fetch) learns that
  // its call went on to the network (see cacheLayerFetch).
  const probeFetch = function fetch(this: unknown, input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const outer = fetchScope.getStore();
    if (outer && !outer.settled && !outer.spanId) return noteForwarded(original.call(this, input, init));
    let record: FetchCall | null = null;
    try {
      record = startRecord(recorder, input, init);
    } catch (error) {
      logger.warnOnce('fetch-start', 'could not record a fetch call', error);
    }
    if (!record) return noteForwarded(original.call(this, input, init));
    const call = record;
    let held: HeldBody | null = null;
    try {
      if (fake || mockAgentAnswers(init)) held = holdStreamBody(input, init);
    } catch (error) {
      logger.warnOnce('fetch-hold', 'could not keep a fetch request body', error);
    }
    if (held) call.onDispatch = held.release;
    const args: [string | URL | Request, RequestInit | undefined] = held ? [held.input, held.init] : [input, init];
    const promise = fetchScope.run(call, () => original.call(this, ...args));
    promise.then(
      (response) => safely(logger, () => ((call.settled = true), resolved(call, response, input, init, held, logger))),
      (error: unknown) => safely(logger, () => ((call.settled = true), held?.release(), rejected(call, error))),
    );
    return noteForwarded(promise);
  } as typeof fetch & { [WRAPPED]?: typeof fetch };
  probeFetch[WRAPPED] = original;
  return probeFetch;
}

function startRecord(recorder: Recorder, input: string | URL | Request, init: RequestInit | undefined): FetchCall | null {
  const unit = recorder.activeUnit();
  // A unit left out by sampling records nothing: no record, no stack, no body held; asked first, so such a
  // call costs one lookup and nothing else.
  if (!unit.sampled) return null;
  const target = fetchTarget(input, init);
  if (!target) return null;
  return recorder.beginCall(unit, { method: target.method, url: target.url, stackLimit: FETCH_STACK_LIMIT, clientDecodes: true }, makeFetchCall);
}

const makeFetchCall = (maxBodyBytes: number) => new FetchCall(maxBodyBytes);

/** The last URL string a fetch call was made with that parsed (see fetchTarget). */
let lastParsed: string | null = null;

/** The method and URL of an app's fetch call; null when it is no HTTP call of the app's (see startRecord). */
export function fetchTarget(input: string | URL | Request, init: RequestInit | undefined): { method: string; url: string } | null {
  const isRequest = typeof input === 'object' && input !== null && 'url' in input && typeof (input as Request).method === 'string';
  const url = isRequest ? (input as Request).url : String(input);
  // fetch rejects an unparseable URL before any network: an app bug, not an HTTP call. A URL object's own href
  // parses, and so does the URL of the call before (an app's loop): parsed once.
  if (url !== lastParsed && !(input instanceof URL && Object.getPrototypeOf(input) === URL.prototype)) {
    if (!URL.canParse(url)) return null;
    lastParsed = url;
  }
  // Only http: and https: go to the network: fetch answers data:, blob: and about: URLs in the process (the Fetch
  // standard's "scheme fetch"), so they are no outgoing call (a reporter loading WebAssembly from a data: URL).
  if (!isNetworkScheme(url)) return null;
  if (isTelemetryTraffic(url, fetchHeaderOf(input, init))) return null;
  const method = (init?.method ?? (isRequest ? (input as Request).method : 'GET')).toUpperCase();
  return { method, url };
}

/** Whether a URL that parses is http: or https: (a URL object's href and a Request's url are already lower case). */
function isNetworkScheme(url: string): boolean {
  const start = url.trimStart().slice(0, 6).toLowerCase();
  return start.startsWith('http:') || start === 'https:';
}

function resolved(
  record: FetchCall,
  response: Response,
  input: string | URL | Request,
  init: RequestInit | undefined,
  held: HeldBody | null,
  logger: Logger,
): void {
  if (record.spanId) {
    held?.release(); // undici reported the real exchange, body included
    return;
  }
  // No undici request was made: a fake (undici MockAgent, msw, nock) answered.
  record.markFake();
  answeredInMemory(record, response, input, init, held, logger);
}

/**
 * A call answered without a request Probe saw (a fake's answer, a cache hit): its row from what the app passed
 * and the response it got, whose body is in memory, so a clone is safe. Finished once both bodies are read.
 */
export function answeredInMemory(
  record: FetchCall,
  response: Response,
  input: string | URL | Request,
  init: RequestInit | undefined,
  held: HeldBody | null,
  logger: Logger,
): void {
  if (init?.headers) record.setRequest(fetchHeaders(new Headers(init.headers)));
  else if (input instanceof Request) record.setRequest(fetchHeaders(input.headers));
  record.identify(randomBytes(8).toString('hex'));
  record.markHeaders(response.status, fetchHeaders(response.headers));
  const pending: Array<Promise<unknown>> = [];
  const requestRead = readFakeRequest(record, init, held);
  if (requestRead) pending.push(requestRead);
  if (response.body) {
    const tap = new BodyTap(record.maxBodyBytes);
    const body = response.clone().body;
    pending.push(body ? readFakeResponse(body, tap).then(() => record.setResponseBody(tap)) : Promise.resolve());
  } else {
    record.setResponseBody(new BodyTap(record.maxBodyBytes));
  }
  if (pending.length === 0) return record.finish();
  // allSettled never rejects and safely() never throws: the chain cannot reject into the app.
  void Promise.allSettled(pending).then(() => safely(logger, () => record.finish()));
}

/** The request body as the fake got it: Probe's branch of a stream, or the body the app passed. */
function readFakeRequest(record: FetchCall, init: RequestInit | undefined, held: HeldBody | null): Promise<unknown> | null {
  if (held) return held.read(record.requestTap());
  const body = init?.body;
  if (body == null) return null;
  return readSettledBody(body, record.requestTap()).then((type) => {
    const headers = record.requestHeaders;
    // fetch sends the type its body implies (a FormData's boundary) when the app names none.
    if (type && Object.isExtensible(headers) && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = type;
  });
}

function rejected(record: FetchCall, error: unknown): void {
  if (!record.spanId) record.identify(randomBytes(8).toString('hex'));
  record.failWithoutResponse(errorInput(error));
}

function safely(logger: Logger, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    logger.warnOnce('fetch-end', 'could not finish a fetch record', error);
  }
}
