import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AddressInfo } from 'node:net';
import type { HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';

// SPEC 2.1: captured bodies are capped at max_body_bytes after content decoding. These bodies are under the
// default 1 MiB cap on the wire and far over it decoded.

const CAP = 1024 * 1024;
const GiB = 1024 * 1024 * 1024;
const zstd = zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer };

/** About 3.3 MB of JSON that gzips to about 150 KB (the field report's body). */
const JSON_BODY = Buffer.from(JSON.stringify({ rows: Array.from({ length: 60000 }, (_, i) => ({ id: i, status: 'active', note: 'repetitive text' })) }));
const ENCODED: Record<string, Buffer> = {
  gzip: zlib.gzipSync(JSON_BODY),
  br: zlib.brotliCompressSync(JSON_BODY),
  deflate: zlib.deflateSync(JSON_BODY),
  ...(zstd.zstdCompressSync ? { zstd: zstd.zstdCompressSync(JSON_BODY) } : {}),
};
const SMALL = Buffer.from(JSON.stringify({ ok: true }));

/** 1 GiB of zeros as gzip and as deflate (about 1 MB each), made once and kept under the temp dir. */
async function bombs(): Promise<Record<'gzip' | 'deflate', string>> {
  const dir = path.join(os.tmpdir(), 'probe-test-bombs');
  fs.mkdirSync(dir, { recursive: true });
  const out = { gzip: path.join(dir, 'zeros-1g.gz'), deflate: path.join(dir, 'zeros-1g.zz') };
  for (const [coding, file] of Object.entries(out)) {
    if (fs.existsSync(file)) continue;
    const zeros = Buffer.alloc(1024 * 1024);
    let n = 0;
    const source = new Readable({ read: () => void source.push(n++ < 1024 ? zeros : null) });
    const encoder = coding === 'gzip' ? zlib.createGzip({ level: 9 }) : zlib.createDeflate({ level: 9 });
    await pipeline(source, encoder, fs.createWriteStream(`${file}.part`));
    fs.renameSync(`${file}.part`, file);
  }
  return out;
}

interface Upstream {
  url: string;
  close(): Promise<void>;
}

async function startUpstream(bombFiles: Record<string, string>): Promise<Upstream> {
  const server = http.createServer((req, res) => {
    const [, kind, coding = ''] = new URL(req.url ?? '/', 'http://x').pathname.split('/');
    if (kind === 'json' && ENCODED[coding]) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': ENCODED[coding]!.length });
      return res.end(ENCODED[coding]);
    }
    if (kind === 'small' && ENCODED[coding]) {
      const body = coding === 'gzip' ? zlib.gzipSync(SMALL) : coding === 'deflate' ? zlib.deflateSync(SMALL) : zlib.brotliCompressSync(SMALL);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      return res.end(body);
    }
    if (kind === 'bomb' && bombFiles[coding]) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': fs.statSync(bombFiles[coding]!).size });
      return void fs.createReadStream(bombFiles[coding]!).pipe(res);
    }
    res.writeHead(404);
    res.end();
  });
  // A client decoding 1 GiB takes seconds to read the last wire bytes: the default 5 s would close the socket under it.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Four clients read each URL as a stream and print what they got: global fetch and axios decode the body
 * themselves; undici.request and node:http hand the app the wire bytes, which it decodes with zlib.
 * In bomb mode the app also prints how far its heap (with Buffers) and its RSS grew past a warmed-up start.
 */
const APP = `
const http = require('node:http');
const zlib = require('node:zlib');
const crypto = require('node:crypto');
const axios = require('axios');
const U = process.env.UPSTREAM, MODE = process.env.MODE, CALLS = process.env.CALLS.split(',').map((call) => call.split(':'));
const decoder = { gzip: () => zlib.createGunzip(), br: () => zlib.createBrotliDecompress(), deflate: () => zlib.createInflate(), zstd: () => zlib.createZstdDecompress() };
// Loaded after fetch has made its own global dispatcher, and with an agent of its own: undici 7 from npm
// would otherwise become the global dispatcher of Node 20's fetch (undici 6).
let agent;
const undici = () => { const u = require('undici'); agent ??= new u.Agent(); return u; };
require('node:v8').setFlagsFromString('--expose-gc');
const gc = require('node:vm').runInNewContext('gc');
const held = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };
let peak = 0;
const sample = () => { const m = process.memoryUsage(); peak = Math.max(peak, m.heapUsed + m.external); };
async function digest(stream) {
  const hash = MODE === 'json' ? crypto.createHash('sha1') : null;
  let n = 0;
  for await (const chunk of stream) { n += chunk.length; hash?.update(chunk); }
  return n + ' ' + (hash ? hash.digest('hex') : '-');
}
const clients = {
  fetch: async (url) => digest((await fetch(url)).body),
  axios: async (url) => digest((await axios.get(url, { responseType: 'stream', decompress: true })).data),
  undici: async (url, coding) => digest((await undici().request(url, { dispatcher: agent })).body.pipe(decoder[coding]())),
  http: (url, coding) => new Promise((resolve, reject) => http.get(url, (res) => digest(res.pipe(decoder[coding]())).then(resolve, reject)).on('error', reject)),
};
(async () => {
  for (const [name, get] of Object.entries(clients)) for (const coding of ['gzip', 'deflate']) await get(U + '/small/' + coding + '?c=' + name, coding);
  const heldBase = held();
  sample();
  const base = peak;
  const rssBase = process.resourceUsage().maxRSS;
  const timer = setInterval(sample, 5);
  for (const [name, coding] of CALLS) console.log('got', name, coding, await clients[name](U + '/' + MODE + '/' + coding + '?c=' + name, coding));
  clearInterval(timer);
  sample();
  console.log('heap-growth', peak - base);
  console.log('held-growth', held() - heldBase);
  // Registered after Probe's hooks, so the capture is built (at beforeExit) before this reads the peak.
  process.on('exit', () => console.log('rss-growth', (process.resourceUsage().maxRSS - rssBase) * 1024));
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

interface Run {
  got: Map<string, string>;
  rows: HttpRow[];
  heapGrowth: number;
  heldGrowth: number;
  rssGrowth: number;
  stderr: string;
}

async function runApp(up: Upstream, mode: 'json' | 'bomb', calls: string[][], preload: 'require' | 'none', config = ''): Promise<Run> {
  const app = new TestApp({ 'app.js': APP, ...(config ? { 'probe.config.js': config } : {}) });
  const result = await app.run('app.js', {
    preload,
    env: { UPSTREAM: up.url, MODE: mode, CALLS: calls.map((call) => call.join(':')).join(',') },
    timeout: 240_000,
  });
  assert.equal(result.code, 0, result.stderr);
  const got = new Map<string, string>();
  for (const line of result.stdout.split('\n')) {
    const match = line.match(/^got (\S+) (\S+) (.+)$/);
    if (match) got.set(`${match[1]} ${match[2]}`, match[3]!);
  }
  const capture = preload === 'none' ? undefined : app.captures().find((c) => c.type === 'command');
  return {
    got,
    rows: ((capture?.sections.http as HttpRow[] | undefined) ?? []).filter((row) => !new URL(row.url).pathname.startsWith('/small')),
    heapGrowth: Number(result.stdout.match(/^heap-growth (-?\d+)/m)?.[1]),
    heldGrowth: Number(result.stdout.match(/^held-growth (-?\d+)/m)?.[1]),
    rssGrowth: Number(result.stdout.match(/^rss-growth (-?\d+)/m)?.[1]),
    stderr: result.stderr,
  };
}

function rowOf(rows: HttpRow[], client: string, coding: string): HttpRow {
  const found = rows.filter((row) => new URL(row.url).pathname.endsWith(`/${coding}`) && new URL(row.url).searchParams.get('c') === client);
  assert.equal(found.length, 1, `${client} ${coding}: one row`);
  return found[0]!;
}

const CLIENTS = ['fetch', 'axios', 'undici', 'http'];
/** Global fetch decodes zstd from undici 7 (Node 24) on; Node 22's undici 6 hands the app the wire bytes. */
const FETCH_DECODES_ZSTD = Number(process.versions.undici?.split('.')[0]) >= 7;
const clientDecodes = (client: string, coding: string): boolean => coding !== 'zstd' || (client !== 'axios' && (client !== 'fetch' || FETCH_DECODES_ZSTD));
const DECODING = new Set(['fetch', 'axios']);

describe('max_body_bytes holds after content decoding', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream(await bombs());
  });
  after(async () => {
    await up.close();
  });

  it('a 3.3 MB JSON body under the cap on the wire is kept truncated, its JSON capture skipped, for every client and coding', async () => {
    const codings = Object.keys(ENCODED);
    const calls = CLIENTS.flatMap((client) => codings.filter((coding) => clientDecodes(client, coding)).map((coding) => [client, coding]));
    const run = await runApp(up, 'json', calls, 'require', 'module.exports = { lenses: { HttpClientLens: { bodies: true } } };');
    const sha = crypto.createHash('sha1').update(JSON_BODY).digest('hex');
    assert.ok(ENCODED.gzip!.length < 200_000, 'gzip is under the cap on the wire');
    for (const [client, coding] of calls as Array<[string, string]>) {
      const what = `${client} ${coding}`;
      assert.equal(run.got.get(what), `${JSON_BODY.length} ${sha}`, `${what}: the app read the body unchanged`);
      const row = rowOf(run.rows, client, coding);
      assert.equal(row.truncated, true, `${what}: truncated`);
      assert.equal(row.response_capture, null, `${what}: no JSON capture`);
      assert.ok(row.response_body !== null && Buffer.byteLength(row.response_body) <= CAP, `${what}: kept body within the cap`);
      assert.ok(row.response_body.startsWith('{"rows":[{"id":0,"status":"active"'), `${what}: the kept body is the decoded start`);
      // fetch and axios hand the app decoded bytes; undici.request and node:http the wire bytes.
      const expected = DECODING.has(client) ? JSON_BODY.length : ENCODED[coding]!.length;
      assert.equal(row.response_bytes, expected, `${what}: response_bytes`);
    }
  });

  it('a 1 MB gzip or deflate body that decodes to 1 GiB: the app reads it unchanged, the row is truncated, memory grows as without Probe', async () => {
    // Every client on gzip (a body kept whole: its size from the trailer); deflate through fetch, whose
    // decoded size Probe counts on the thread pool as the body streams.
    const calls = [...CLIENTS.map((client) => [client, 'gzip']), ['fetch', 'deflate']];
    const plain = await runApp(up, 'bomb', calls, 'none');
    const probed = await runApp(up, 'bomb', calls, 'require');
    for (const [client, coding] of calls as Array<[string, string]>) {
      const what = `${client} ${coding}`;
      assert.equal(plain.got.get(what), `${GiB} -`, `${what}: without Probe`);
      assert.equal(probed.got.get(what), `${GiB} -`, `${what}: with Probe`);
      const row = rowOf(probed.rows, client, coding);
      assert.equal(row.truncated, true, `${what}: truncated`);
      assert.equal(row.response_capture, null, `${what}: no JSON capture`);
      assert.equal(row.response_body, null, `${what}: no body kept (bodies off)`);
      assert.equal(
        row.response_bytes,
        DECODING.has(client) ? GiB : fs.statSync(path.join(os.tmpdir(), 'probe-test-bombs', coding === 'gzip' ? 'zeros-1g.gz' : 'zeros-1g.zz')).size,
        `${what}: response_bytes`,
      );
    }
    const MiB = 1024 * 1024;
    const mib = (n: number) => (n / MiB).toFixed(1);
    const report =
      `with Probe / without: heap+buffers held after the calls ${mib(probed.heldGrowth)} / ${mib(plain.heldGrowth)} MiB, ` +
      `peak ${mib(probed.heapGrowth)} / ${mib(plain.heapGrowth)} MiB, max RSS ${mib(probed.rssGrowth)} / ${mib(plain.rssGrowth)} MiB`;
    console.log(report);
    // What Probe holds once the calls are done: each row's kept wire bytes (at most the cap), nothing decoded;
    // the rest of the margin is run-to-run noise (a few MiB either way, measured on Node 20 and 24).
    assert.ok(probed.heldGrowth - plain.heldGrowth < calls.length * CAP + 12 * MiB, report);
    // Peaks swing by tens of MiB with the garbage of 1 GiB decoded in 16 KiB chunks; a bomb held would be 1 GiB.
    assert.ok(probed.heapGrowth - plain.heapGrowth < 160 * MiB, report);
    assert.ok(probed.rssGrowth - plain.rssGrowth < 160 * MiB, report);
  });
});
