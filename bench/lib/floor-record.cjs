// What the floor's thread (bench/floor-thread.cjs) does with one request's record, in the steps bench/floor-parts.mjs
// times one by one: decode each kept body (UTF-8), ONE linear masking pass over it (a single regex for secret-named JSON
// keys and credential-format values), the secret-named headers masked, ONE JSON serialisation, ONE file per request
// (open O_CREAT|O_EXCL, write, close; with `rename` a temp file renamed into place, as Probe's FileStore does), at most
// 200 files kept (the oldest unlinked).
'use strict';
const { closeSync, constants, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } = require('node:fs');
const path = require('node:path');

const LIMIT = 200;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
// One pass: at each `"` the key alternation, at each of a few literal prefixes a credential's shape. Linear: no
// nested quantifiers, every alternative starts with a fixed character.
const SECRET =
  /"(?:password|passwd|secret|client_secret|token|access_token|refresh_token|id_token|api_key|apikey|authorization|cookie|session)"\s*:\s*"(?:[^"\\]|\\.)*"|\b(?:sk-|sk_live_|ghp_|github_pat_|xox[abp]-|AKIA|eyJ)[A-Za-z0-9_\-.]{12,}/gi;
const SECRET_HEADER = /^(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key)$/i;
const MASKED = '[masked]';

const maskMatch = (match) => (match.charCodeAt(0) === 34 ? match.slice(0, match.indexOf(':') + 1) + `"${MASKED}"` : MASKED);

/** The kept bytes as text (a body message: `{bytes, size}` from bench/lib/floor-body.cjs). */
const decode = (body) => Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength).toString('utf8');

/** One pass; replace() returns the string itself when nothing matched: no copy of a clean body. */
const maskText = (text) => text.replace(SECRET, maskMatch);

function keptBody(body) {
  if (!body?.bytes) return null;
  return { text: maskText(decode(body)), size: body.size, truncated: body.size > body.bytes.byteLength };
}

/** Header lists as the clients give them: a flat [name, value, …] array (undici, rawHeaders) or an object (getHeaders()). */
function maskHeaders(headers) {
  if (!headers) return null;
  if (Array.isArray(headers)) {
    const out = headers.slice();
    for (let i = 0; i < out.length; i += 2) if (SECRET_HEADER.test(out[i])) out[i + 1] = MASKED;
    return out;
  }
  const out = {};
  for (const name of Object.keys(headers)) out[name] = SECRET_HEADER.test(name) ? MASKED : headers[name];
  return out;
}

/** The record as stored: plain data, bodies decoded and masked, headers masked. */
function keptRecord(record) {
  const calls = record.calls.map((call) => ({
    method: call.method,
    url: call.url,
    caller: call.caller,
    status: call.status,
    error: call.error,
    timings: { start: call.start, headers: call.headersAt, end: call.end },
    request_headers: maskHeaders(call.requestHeaders),
    response_headers: maskHeaders(call.responseHeaders),
    request_body: keptBody(call.request),
    response_body: keptBody(call.response),
  }));
  return { id: record.id, name: record.name, start: record.start, end: record.end, calls };
}

/** One file per record in `dir`, at most 200 kept; `rename`: written under a temp name, then renamed into place. */
class FloorFiles {
  constructor(dir, rename) {
    this.dir = dir;
    this.rename = rename;
    this.started = Date.now();
    this.written = 0;
    this.removed = 0;
    mkdirSync(dir, { recursive: true });
    // The folder's files so far (an earlier process of the same variant), oldest first: the limit counts them too.
    this.kept = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  }

  /** Writes `text` as a new file; returns the bytes written. */
  write(text) {
    // Names sort by time: the writer's start time, its pid (two processes of one variant never collide), a counter.
    const name = `${this.started}-${process.pid}-${String(++this.written).padStart(9, '0')}.json`;
    const file = path.join(this.dir, name);
    const target = this.rename ? path.join(this.dir, `.${name}.tmp`) : file;
    const fd = openSync(target, CREATE, 0o666);
    let bytes;
    try {
      bytes = writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    if (this.rename) renameSync(target, file);
    this.kept.push(name);
    while (this.kept.length > LIMIT) {
      unlinkSync(path.join(this.dir, this.kept.shift()));
      this.removed++;
    }
    return bytes;
  }
}

module.exports = { decode, maskText, maskHeaders, keptRecord, FloorFiles };
