// The floor's taps (bench/floor-preload.cjs): per outgoing call, on the app's thread, only what a tool that keeps
// bodies must do while the call runs: timestamps, a copy of the request and response header lists, one copy of the
// body bytes sent and received (lib/floor-body.cjs), and with `stack` the caller's frames (as Probe takes them).
// Through diagnostics_channel, OTel's requestHook and the request instances' own methods: nothing of the app's streams
// changes (no 'data' listener, no tee/clone), as Probe's lenses tap them.
'use strict';
const diagnostics = require('node:diagnostics_channel');
const { performance } = require('node:perf_hooks');
const { FloorBody } = require('./floor-body.cjs');

const CALL = Symbol('floor.call');
const UNDICI_CHUNK_CHANNELS = Number(process.versions.undici?.split('.')[0] ?? 0) >= 7;

/** The caller's frames as structured call sites, then the first app frame as `file:line` (Probe keeps the calling line). */
function callerLine(limit) {
  const previousPrepare = Error.prepareStackTrace;
  const previousLimit = Error.stackTraceLimit;
  const holder = {};
  let sites;
  try {
    Error.prepareStackTrace = (_, sites) => sites;
    Error.stackTraceLimit = limit;
    Error.captureStackTrace(holder, callerLine);
    // V8 formats the stack when it is first read, with the prepareStackTrace of that moment.
    sites = holder.stack;
  } finally {
    Error.prepareStackTrace = previousPrepare;
    Error.stackTraceLimit = previousLimit;
  }
  if (!Array.isArray(sites)) return null;
  for (const site of sites) {
    const file = site.getFileName();
    if (file && !file.startsWith('node:') && !file.includes('/node_modules/') && !file.includes('/bench/lib/')) return `${file}:${site.getLineNumber()}`;
  }
  return null;
}

function newCall(method, url, requestHeaders, stackLimit) {
  return {
    method,
    url,
    caller: stackLimit ? callerLine(stackLimit) : null,
    start: performance.now(),
    headersAt: 0,
    end: 0,
    status: 0,
    error: null,
    requestHeaders,
    responseHeaders: null,
    request: new FloorBody(),
    response: null,
  };
}

const contentLength = (value) => (value === undefined ? 0 : Number(value) || 0);

/** fetch (undici): `request:create` wraps the request instance's onBodySent/onData (undici 6) or uses the chunk channels (7+). */
function tapUndici(recordOf, stack) {
  diagnostics.subscribe('undici:request:create', ({ request }) => {
    const record = recordOf();
    if (!record) return;
    // undici keeps the request's headers as a flat [name, value, …] list of strings: copying the list keeps them.
    const call = newCall(
      request.method,
      request.origin + request.path,
      Array.isArray(request.headers) ? request.headers.slice() : request.headers,
      // At request:create the app's frame lies under undici's dispatch chain: about 28 frames down on Node 20.
      stack && 32,
    );
    record.calls.push(call);
    request[CALL] = call;
    if (UNDICI_CHUNK_CHANNELS) return;
    const onBodySent = request.onBodySent;
    request.onBodySent = function (chunk) {
      call.request.add(chunk);
      return onBodySent.apply(this, arguments);
    };
    const onData = request.onData;
    // Returning the original's value keeps the client's back-pressure.
    request.onData = function (chunk) {
      call.response?.add(chunk);
      return onData.apply(this, arguments);
    };
  });
  diagnostics.subscribe('undici:request:headers', ({ request, response }) => {
    const call = request[CALL];
    if (!call) return;
    call.headersAt = performance.now();
    call.status = response.statusCode;
    // The raw header list is Buffers that view the socket's read: decoded (copied) now.
    const raw = response.headers;
    const headers = new Array(raw.length);
    let length;
    for (let i = 0; i < raw.length; i += 2) {
      headers[i] = raw[i].toString('latin1');
      headers[i + 1] = raw[i + 1].toString('latin1');
      if (length === undefined && headers[i].length === 14 && headers[i].toLowerCase() === 'content-length') length = headers[i + 1];
    }
    call.responseHeaders = headers;
    call.response = new FloorBody(contentLength(length));
  });
  diagnostics.subscribe('undici:request:trailers', ({ request }) => {
    const call = request[CALL];
    if (call) call.end = performance.now();
  });
  diagnostics.subscribe('undici:request:error', ({ request, error }) => {
    const call = request[CALL];
    if (!call) return;
    call.end = performance.now();
    call.error = String(error?.code ?? error?.name ?? 'error');
  });
  if (UNDICI_CHUNK_CHANNELS) {
    diagnostics.subscribe('undici:request:bodyChunkSent', ({ request, chunk }) => request[CALL]?.request.add(chunk));
    diagnostics.subscribe('undici:request:bodyChunkReceived', ({ request, chunk }) => request[CALL]?.response?.add(chunk));
  }
}

/**
 * node:http: OTel's requestHook, which runs inside http.request() before it returns (the channel
 * `http.client.request.start` comes a tick later on Node 20, after a `req.end(body)` made at once, and with no app
 * frame on the stack), wraps the request instance's write/end; the response channel then wraps the response
 * instance's push (the parser's, chunk by chunk, null at the end).
 */
function tapHttp(recordOf, stack) {
  const requestHook = (_span, request) => {
    // Called for the server's incoming requests too: only a client request has getHeader.
    if (typeof request.getHeader !== 'function' || typeof request.write !== 'function' || request[CALL]) return;
    const record = recordOf();
    if (!record) return;
    // Headers may still change until the request is sent: copied when the answer comes. The app's frame lies under
    // OTel's wrapper of http.request: about 13 frames down.
    const call = newCall(request.method, `${request.protocol}//${request.getHeader('host') ?? request.host}${request.path}`, null, stack && 16);
    record.calls.push(call);
    request[CALL] = call;
    const write = request.write;
    request.write = function (chunk, encoding) {
      if (chunk != null && typeof chunk !== 'function') call.request.add(chunk, typeof encoding === 'string' ? encoding : undefined);
      return write.apply(this, arguments);
    };
    const end = request.end;
    request.end = function (chunk, encoding) {
      if (chunk != null && typeof chunk !== 'function') call.request.add(chunk, typeof encoding === 'string' ? encoding : undefined);
      return end.apply(this, arguments);
    };
  };
  diagnostics.subscribe('http.client.response.finish', ({ request, response }) => {
    const call = request[CALL];
    if (!call) return;
    call.headersAt = performance.now();
    call.status = response.statusCode;
    call.requestHeaders = request.getHeaders();
    // rawHeaders, not headers: Node builds the headers object on first read, which the app may never ask for.
    const raw = response.rawHeaders;
    let length;
    for (let i = 0; i < raw.length && length === undefined; i += 2) if (raw[i].length === 14 && raw[i].toLowerCase() === 'content-length') length = raw[i + 1];
    call.responseHeaders = raw.slice();
    call.response = new FloorBody(contentLength(length));
    const push = response.push;
    response.push = function (chunk, encoding) {
      if (chunk === null) call.end = performance.now();
      else call.response.add(chunk, encoding);
      return push.apply(this, arguments);
    };
  });
  return requestHook;
}

/**
 * Taps fetch and node:http; `recordOf()` gives the record of the request being served (null: not kept). Returns the
 * requestHook to give OTel's HttpInstrumentation.
 */
function tapCalls(recordOf, { stack = false } = {}) {
  tapUndici(recordOf, stack);
  return { requestHook: tapHttp(recordOf, stack) };
}

module.exports = { tapCalls };
