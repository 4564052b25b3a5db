#!/usr/bin/env node
// Benchmark: the floor of keeping bodies (bench/floor-preload.cjs) taken apart, with no server and no load: for one
// request of bench/peers-app.cjs (fetch GET, node:http GET, fetch POST with a small JSON body and an authorization
// header, each answered with the upstream's JSON of each --answer size), the CPU µs of each step the floor does, on one
// thread, one step at a time over many requests: on the app's thread the copy of the body bytes (bench/lib/floor-body.cjs,
// in 64 KB chunks as socket reads come) and the hand-over (structuredClone with the buffers transferred: what
// postMessage serialises and the thread deserialises); on the floor's thread (bench/lib/floor-record.cjs) the UTF-8
// decode, the masking pass, the record's JSON.stringify, and the file: open O_EXCL + write + close (+ unlink past 200),
// then the same with a temp file and rename; and a raw file (bodies kept as bytes after a JSON head: a latin1 masking
// pass, no UTF-8 decode, no escaping). Prints medians over the rounds per step, and the sums. A floor of
// keeping bodies beside a server's CPU per request (bench/peers.mjs): what the disk and V8 charge for the kept bytes.
// Usage: node bench/floor-parts.mjs [--answer 60,5k,50k,500k] [--rounds 3] [--bytes 60m]
import { parseArgs } from 'node:util';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, unlinkSync, writevSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { answerOf } from './lib/answer.mjs';
import { median, table, machine } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const { FloorBody } = require('./lib/floor-body.cjs');
const { decode, maskText, maskHeaders, FloorFiles } = require('./lib/floor-record.cjs');

/**
 * The raw variant of the file (not a peers variant): each body stays bytes. The masking pass reads it as latin1 (one
 * byte per character: the secret patterns are ASCII, and a latin1 round trip gives back every byte, UTF-8 included),
 * and only a body it changed is encoded again; the file is a JSON head (the record with each body's length) then the
 * bodies as they are: no UTF-8 decode, no escaping of the body inside a JSON string.
 */
function rawBody(body) {
  if (!body?.bytes) return null;
  const bytes = Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength);
  const text = bytes.latin1Slice(0, bytes.length);
  const masked = maskText(text);
  return masked === text ? bytes : Buffer.from(masked, 'latin1');
}

/** One file per record from a head and the body buffers (writev), temp name then rename, 200 kept. */
class RawFiles {
  constructor(dir) {
    this.dir = dir;
    this.kept = [];
    this.written = 0;
    mkdirSync(dir, { recursive: true });
  }

  write(parts) {
    const name = `${++this.written}.cap`;
    const temp = path.join(this.dir, `.${name}.tmp`);
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
    try {
      writevSync(fd, parts);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path.join(this.dir, name));
    this.kept.push(name);
    if (this.kept.length > 200) unlinkSync(path.join(this.dir, this.kept.shift()));
  }
}

const { values } = parseArgs({
  options: {
    answer: { type: 'string', default: '60,5k,50k,500k' },
    rounds: { type: 'string', default: '3' },
    bytes: { type: 'string', default: '60m' },
  },
});
const bytesOf = (word) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)b?$/i.exec(word.trim());
  if (!m) throw new Error(`cannot read ${JSON.stringify(word)} (sizes like 60,5k,50k,500k)`);
  return Math.round(Number(m[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()]);
};
const sizes = values.answer.split(',').map(bytesOf);
const rounds = Number(values.rounds);
const budget = bytesOf(values.bytes);
const sizeLabel = (bytes) => (bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`);
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
/** CPU µs per request of `step(i)` over n requests. */
const timed = (n, step) => {
  const before = cpu();
  for (let i = 0; i < n; i++) step(i);
  return (cpu() - before) / n;
};

const fetchHeaders = ['accept', '*/*', 'accept-language', '*', 'sec-fetch-mode', 'cors', 'user-agent', 'node', 'accept-encoding', 'gzip, deflate'];
const answerHeaders = (length) => [
  'content-type',
  'application/json',
  'content-length',
  String(length),
  'Date',
  new Date().toUTCString(),
  'Connection',
  'keep-alive',
  'Keep-Alive',
  'timeout=5',
];
const postBody = Buffer.from(JSON.stringify({ user: 42, items: [1, 2, 3] }));

/** The copy the app's thread makes of one body, from socket-read-sized chunks. */
function copied(bytes, expected) {
  const body = new FloorBody(expected);
  for (let at = 0; at < bytes.length; at += 65536) body.add(bytes.subarray(at, Math.min(bytes.length, at + 65536)));
  return body;
}

function records(n, answer) {
  const call = (method, url, requestHeaders, request) => ({
    method,
    url,
    caller: null,
    start: 1,
    headersAt: 2,
    end: 3,
    status: 200,
    error: null,
    requestHeaders,
    responseHeaders: answerHeaders(answer.length),
    request: request ? copied(request, 0).toMessage() : null,
    response: copied(answer, answer.length).toMessage(),
  });
  return Array.from({ length: n }, (_, id) => ({
    id,
    name: 'GET',
    start: 0,
    end: 4,
    calls: [
      call('GET', 'http://127.0.0.1:1/users/42', fetchHeaders),
      call('GET', 'http://127.0.0.1:1/orders?user=42', { host: '127.0.0.1:1' }),
      call('POST', 'http://127.0.0.1:1/orders', ['content-type', 'application/json', 'authorization', 'Bearer sk-bench-secret', ...fetchHeaders], postBody),
    ],
  }));
}

const STEPS = [
  'copy (app)',
  'hand-over (clone + transfer)',
  'decode',
  'mask pass',
  'JSON.stringify',
  'file: O_EXCL write close',
  'file: + temp and rename',
  'raw: latin1 mask pass',
  'raw: head JSON.stringify',
  'raw: file writev + rename',
];
console.log(`floor parts: answers of ${sizes.map(sizeLabel).join(', ')}, ${rounds} rounds, ${machine()}, load average ${os.loadavg()[0].toFixed(2)}`);
const rows = [];
for (const size of sizes) {
  const answer = Buffer.from(answerOf(size));
  const n = Math.max(50, Math.min(5000, Math.round(budget / (3 * answer.length + 200))));
  const per = Object.fromEntries(STEPS.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floor-parts-'));
    try {
      per['copy (app)'].push(
        timed(n, () => [copied(answer, answer.length), copied(answer, answer.length), copied(answer, answer.length), copied(postBody, 0)]),
      );
      const batch = records(n, answer);
      per['hand-over (clone + transfer)'].push(
        timed(n, (i) => {
          const r = batch[i];
          const transfer = r.calls
            .flatMap((c) => [c.request, c.response])
            .flatMap((b) => (b?.bytes && b.bytes.buffer.byteLength >= 1024 ? [b.bytes.buffer] : []));
          batch[i] = structuredClone(r, { transfer });
        }),
      );
      const texts = new Array(n);
      per.decode.push(timed(n, (i) => (texts[i] = batch[i].calls.map((c) => [c.request && decode(c.request), decode(c.response)]))));
      per['mask pass'].push(timed(n, (i) => (texts[i] = texts[i].map(([q, a]) => [q && maskText(q), maskText(a)]))));
      const kept = batch.map((r, i) => ({
        id: r.id,
        calls: r.calls.map((c, j) => ({
          method: c.method,
          url: c.url,
          request_headers: maskHeaders(c.requestHeaders),
          response_headers: maskHeaders(c.responseHeaders),
          request_body: texts[i][j][0] && { text: texts[i][j][0] },
          response_body: { text: texts[i][j][1] },
        })),
      }));
      const json = new Array(n);
      per['JSON.stringify'].push(timed(n, (i) => (json[i] = JSON.stringify(kept[i]))));
      const plain = new FloorFiles(path.join(dir, 'plain'), false);
      per['file: O_EXCL write close'].push(timed(n, (i) => plain.write(json[i])));
      const renamed = new FloorFiles(path.join(dir, 'renamed'), true);
      per['file: + temp and rename'].push(timed(n, (i) => renamed.write(json[i])));
      const raws = new Array(n);
      per['raw: latin1 mask pass'].push(timed(n, (i) => (raws[i] = batch[i].calls.flatMap((c) => [rawBody(c.request), rawBody(c.response)]))));
      const heads = new Array(n);
      per['raw: head JSON.stringify'].push(
        timed(n, (i) => {
          const lengths = raws[i].map((b) => b?.length ?? -1);
          heads[i] = Buffer.from(
            JSON.stringify({ ...kept[i], calls: kept[i].calls.map((c) => ({ ...c, request_body: null, response_body: null })), lengths }) + '\n',
          );
        }),
      );
      const rawFiles = new RawFiles(path.join(dir, 'raw'));
      per['raw: file writev + rename'].push(timed(n, (i) => rawFiles.write([heads[i], ...raws[i].filter(Boolean)])));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const med = STEPS.map((s) => median(per[s]));
  // The floor: everything but the rename (floor) or everything, the rename's file step instead of the plain one.
  const floor = med[0] + med[1] + med[2] + med[3] + med[4] + med[5];
  const floorRename = floor - med[5] + med[6];
  const raw = med[0] + med[1] + med[7] + med[8] + med[9];
  rows.push([sizeLabel(size), n, ...med.map((x) => x.toFixed(0)), floor.toFixed(0), floorRename.toFixed(0), raw.toFixed(0)]);
}
console.log(table(['answer', 'requests', ...STEPS.map((s) => `${s} µs/req`), 'floor µs/req', 'floor-rename µs/req', 'raw + rename µs/req'], rows));
console.log(`load average at the end: ${os.loadavg()[0].toFixed(2)}`);
