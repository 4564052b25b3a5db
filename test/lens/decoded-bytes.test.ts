import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { HttpRow } from '../../src/capture/types';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const MAX_BODY = 4096;
const JSON_LENGTH = Buffer.byteLength(
  JSON.stringify({ ok: true, token: 'upstream-secret-token', items: [1, 2, 3], user: { name: 'ada', password: 'hunter2' } }),
);
const BIG = 200_000;

/** Text that compresses about 2:1, so a big body is far past `max_body_bytes` on the wire too. */
function bigText(n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  let x = 7;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = 0x61 + ((x >> 16) % 16);
  }
  return out;
}

interface Encoded {
  url: string;
  /** Wire size of each route's body. */
  wire: Record<string, number>;
  close(): Promise<void>;
}

/** Big bodies in each coding, and a body that claims gzip but is not. */
async function startEncoded(): Promise<Encoded> {
  const raw = bigText(BIG);
  const bodies: Record<string, [string, Buffer]> = {
    '/big/gzip': ['gzip', zlib.gzipSync(raw)],
    '/big/br': ['br', zlib.brotliCompressSync(raw)],
    '/big/deflate': ['deflate', zlib.deflateSync(raw)],
    '/bad/gzip': ['gzip', Buffer.concat([zlib.gzipSync(raw).subarray(0, 10), bigText(3000)])],
  };
  const server = http.createServer((req, res) => {
    const body = bodies[new URL(req.url ?? '/', 'http://x').pathname];
    if (!body) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': body[0], 'content-length': body[1].length });
    res.end(body[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const wire: Record<string, number> = {};
  for (const [route, [, bytes]] of Object.entries(bodies)) wire[route] = bytes.length;
  return {
    url: `http://127.0.0.1:${port}`,
    wire,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const CONFIG = `module.exports = { lenses: { HttpClientLens: { max_body_bytes: ${MAX_BODY} } } };`;
const NO_ORIGIN = `module.exports = { origin: { enabled: false }, lenses: { HttpClientLens: { max_body_bytes: ${MAX_BODY} } } };`;

/** Every client reads every route and prints the body size it got: the size a row must show. */
const APP = `
const http = require('node:http');
const axios = require('axios');
const nodeFetch = require('node-fetch');
const U = process.env.UPSTREAM, E = process.env.ENCODED;
const paths = [U + '/gzip', U + '/br', U + '/deflate', E + '/big/gzip', E + '/big/br', E + '/big/deflate', E + '/bad/gzip'];
const raw = (url) => new Promise((resolve, reject) => http.get(url, (res) => { let n = 0; res.on('data', (c) => (n += c.length)); res.on('end', () => resolve(n)); }).on('error', reject));
const clients = {
  axios: async (url) => (await axios.get(url, { responseType: 'arraybuffer' })).data.length,
  got: async (url) => (await (await gotP)(url).buffer()).length,
  'node-fetch': async (url) => (await (await nodeFetch(url)).buffer()).length,
  fetch: async (url) => (await (await fetch(url)).arrayBuffer()).byteLength,
  http: raw,
};
const gotP = import('got').then((m) => m.default);
(async () => {
  for (const [name, get] of Object.entries(clients)) {
    for (const path of paths) {
      const url = path + '?c=' + name;
      try { console.log('got', name, new URL(url).pathname, await get(url)); }
      catch (e) { console.log('failed', name, new URL(url).pathname, e.code || e.name); }
    }
  }
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

describe('response_bytes after content decoding', () => {
  let up: Upstreams;
  let encoded: Encoded;
  before(async () => {
    up = await startUpstreams();
    encoded = await startEncoded();
  });
  after(async () => {
    await encoded.close();
    await up.close();
  });

  it('knows the decoding clients without call sites too (origin off)', async () => {
    const run = await runLensApp(up, { 'app.js': APP, 'probe.config.js': NO_ORIGIN }, 'app.js', { env: { ENCODED: encoded.url } });
    assert.equal(run.result.code, 0, run.result.stderr);
    for (const client of ['axios', 'got', 'node-fetch', 'fetch']) {
      const row = run.rows.find((r) => r.url === `${encoded.url}/big/gzip?c=${client}`);
      assert.equal(row?.origin, null);
      assert.equal(row?.response_bytes, BIG, `${client}: decoded size`);
    }
    assert.equal(run.rows.find((r) => r.url === `${encoded.url}/big/gzip?c=http`)?.response_bytes, encoded.wire['/big/gzip']);
  });

  for (const preload of ['require', 'import'] as const) {
    it(`counts the bytes the client handed the app: decoded for axios, got, node-fetch, fetch; wire for node:http (--${preload})`, async () => {
      const run = await runLensApp(up, { 'app.js': APP, 'probe.config.js': CONFIG }, 'app.js', { preload, env: { ENCODED: encoded.url } });
      assert.equal(run.result.code, 0, run.result.stderr);
      const seen = new Map<string, number>();
      for (const line of run.result.stdout.split('\n')) {
        const got = line.match(/^got (\S+) (\S+) (\d+)$/);
        if (got) seen.set(`${got[1]} ${got[2]}`, Number(got[3]));
      }
      const rows = run.rows;
      const row = (client: string, path: string): HttpRow => {
        const found = rows.filter((r) => new URL(r.url).pathname === path && new URL(r.url).searchParams.get('c') === client);
        assert.equal(found.length, 1, `${client} ${path}: one row`);
        return found[0]!;
      };

      for (const client of ['axios', 'got', 'node-fetch', 'fetch']) {
        for (const path of ['/gzip', '/br', '/deflate', '/big/gzip', '/big/br', '/big/deflate']) {
          const r = row(client, path);
          const big = path.startsWith('/big');
          assert.equal(seen.get(`${client} ${path}`), big ? BIG : JSON_LENGTH, `${client} ${path}: the app read it decoded`);
          assert.equal(r.response_bytes, seen.get(`${client} ${path}`), `${client} ${path}: response_bytes is the decoded size`);
          if (big) {
            assert.equal(r.response_bytes, BIG);
            assert.equal(r.truncated, true, `${client} ${path}: kept body truncated`);
          }
        }
        // A body that claims gzip but is not: the client fails reading it, the row keeps the wire size.
        const bad = row(client, '/bad/gzip');
        assert.equal(bad.status, 200);
        assert.equal(bad.response_bytes, encoded.wire['/bad/gzip'], `${client}: wire size of a corrupt body`);
        assert.match(run.result.stdout, new RegExp(`failed ${client} /bad/gzip`));
      }

      // node:http hands the app the wire bytes: that is what its row counts.
      for (const path of ['/big/gzip', '/big/br', '/big/deflate', '/bad/gzip']) {
        assert.equal(row('http', path).response_bytes, encoded.wire[path]);
        assert.equal(seen.get(`http ${path}`), encoded.wire[path]);
      }
      for (const path of ['/gzip', '/br', '/deflate']) assert.equal(row('http', path).response_bytes, seen.get(`http ${path}`));
      assert.notEqual(seen.get('http /gzip'), JSON_LENGTH, 'node:http read the gzip bytes');
    });
  }
});
