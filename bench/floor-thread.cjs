// The floor's thread (bench/floor-preload.cjs): per request record, what keeping it costs at the least, as Probe's
// store thread must do it for issue 28's "what must hold": each kept body decoded (UTF-8) and read by ONE linear
// masking pass (a single regex for secret-named JSON keys and credential-format values), the secret-named headers
// masked, ONE JSON serialisation of the record, ONE file per request (open O_CREAT|O_EXCL, write, close; with
// `rename` a temp file renamed into place, as Probe's FileStore does), and at most 200 files kept (the oldest unlinked).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, constants, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } = require('node:fs');
const path = require('node:path');

const LIMIT = 200;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
const { dir, rename, stats } = workerData;

// One pass: at each `"` the key alternation, at each of a few literal prefixes a credential's shape. Linear: no
// nested quantifiers, every alternative starts with a fixed character.
const SECRET =
  /"(?:password|passwd|secret|client_secret|token|access_token|refresh_token|id_token|api_key|apikey|authorization|cookie|session)"\s*:\s*"(?:[^"\\]|\\.)*"|\b(?:sk-|sk_live_|ghp_|github_pat_|xox[abp]-|AKIA|eyJ)[A-Za-z0-9_\-.]{12,}/gi;
const SECRET_HEADER = /^(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key)$/i;
const MASKED = '[masked]';

const maskMatch = (match) => (match.charCodeAt(0) === 34 ? match.slice(0, match.indexOf(':') + 1) + `"${MASKED}"` : MASKED);

function maskBody(body) {
  if (!body?.bytes) return null;
  const text = Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength).toString('utf8');
  // replace() returns the string itself when nothing matched: no copy for a clean body.
  return { text: text.replace(SECRET, maskMatch), size: body.size, truncated: body.size > body.bytes.byteLength };
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

mkdirSync(dir, { recursive: true });
// The folder's files so far (an earlier process of the same variant), oldest first: the limit counts them too.
const kept = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .sort();
let written = 0;
const started = Date.now();

function write(record) {
  const calls = record.calls.map((call) => ({
    method: call.method,
    url: call.url,
    caller: call.caller,
    status: call.status,
    error: call.error,
    timings: { start: call.start, headers: call.headersAt, end: call.end },
    request_headers: maskHeaders(call.requestHeaders),
    response_headers: maskHeaders(call.responseHeaders),
    request_body: maskBody(call.request),
    response_body: maskBody(call.response),
  }));
  const text = JSON.stringify({ id: record.id, name: record.name, start: record.start, end: record.end, calls });
  // Names sort by time: the thread's start time, its pid (two processes of one variant never collide), a counter.
  const name = `${started}-${process.pid}-${String(++written).padStart(9, '0')}.json`;
  const file = path.join(dir, name);
  const target = rename ? path.join(dir, `.${name}.tmp`) : file;
  const fd = openSync(target, CREATE, 0o666);
  let bytes;
  try {
    bytes = writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  if (rename) renameSync(target, file);
  stats[1]++;
  stats[2] += bytes;
  kept.push(name);
  while (kept.length > LIMIT) {
    unlinkSync(path.join(dir, kept.shift()));
    stats[3]++;
  }
}

parentPort.on('message', (batch) => {
  for (const record of batch) {
    try {
      write(record);
    } catch {
      stats[4]++;
    }
    stats[0]++;
  }
});
