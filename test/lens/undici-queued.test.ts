import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Capture, HttpRow } from '../../src/capture/types';
import { TestApp, collect, waitForLine } from '../helpers/app';

/**
 * A gateway that bounds its connections: every incoming request makes 2 calls to an upstream through a shared undici
 * `Pool` (or an `Agent`) of 4 connections, and 200 requests arrive at once, so most calls wait in the pool's queue
 * and are dispatched later from another request's socket event. Each call must stay in the request capture that
 * made it (one row, with its code line), none in the process's command capture.
 */
const GATEWAY = `
const http = require('node:http');
const { Pool, Agent, setGlobalDispatcher, request } = require('undici');
const upstream = process.env.UPSTREAM;
const pool = new Pool(upstream, { connections: 4 });
if (process.env.MODE === 'global') setGlobalDispatcher(new Agent({ connections: 4 }));
// An interceptor that defers every request a turn (as a rate limiter or a token refresh would).
const deferred = new Agent({ connections: 4 }).compose((dispatch) => (opts, handler) => {
  setImmediate(() => dispatch(opts, handler));
  return true;
});
async function call(path) {
  if (process.env.MODE === 'request') {
    const r = await pool.request({ path, method: 'GET' }); // call: request
    return r.body.text();
  }
  if (process.env.MODE === 'fetch') {
    const r = await fetch(upstream + path, { dispatcher: pool }); // call: fetch
    return r.text();
  }
  if (process.env.MODE === 'deferred') {
    const r = await request(upstream + path, { dispatcher: deferred }); // call: deferred
    return r.body.text();
  }
  const r = await fetch(upstream + path); // call: global
  return r.text();
}
const server = http.createServer(async (req, res) => {
  const id = req.url.slice(3);
  const [a, b] = await Promise.all([call('/a?id=' + id), call('/b?id=' + id)]);
  res.end(a + ' ' + b);
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => server.close(() => pool.close().then(() => process.exit(0))));
`;

const CONCURRENT = 200;
const line = (mode: string) => GATEWAY.split('\n').findIndex((text) => text.includes(`// call: ${mode}`)) + 1;
const rowsOf = (capture: Capture) => (capture.sections.http ?? []) as HttpRow[];

describe('calls queued in a bounded undici dispatcher keep the unit that made them', () => {
  let upstream: http.Server;
  let base = '';
  before(async () => {
    // A short wait per answer, so the 4 connections stay busy and the queue fills.
    upstream = http.createServer((req, res) => setTimeout(() => res.end(`ok ${req.url}`), 2));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(() => upstream.close());

  for (const mode of ['request', 'fetch', 'global', 'deferred'] as const) {
    const title = {
      request: 'pool.request',
      fetch: 'fetch with dispatcher: pool',
      global: 'fetch through setGlobalDispatcher(Agent)',
      deferred: 'an interceptor that defers',
    }[mode];
    it(`${title}: ${CONCURRENT} requests at once`, async () => {
      const app = new TestApp({ 'gateway.cjs': GATEWAY });
      const child = app.spawn('gateway.cjs', { env: { UPSTREAM: base, MODE: mode } });
      const [, port] = await waitForLine(child, /listening (\d+)/);
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT });
      const answers = await Promise.all(
        Array.from(
          { length: CONCURRENT },
          (_, id) =>
            new Promise<string>((resolve, reject) =>
              http
                .get(`http://127.0.0.1:${port}/r/${id}`, { agent }, (res) => {
                  let text = '';
                  res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
                  res.on('end', () => resolve(text));
                })
                .on('error', reject),
            ),
        ),
      );
      agent.destroy();
      answers.forEach((text, id) => assert.equal(text, `ok /a?id=${id} ok /b?id=${id}`));
      child.kill('SIGTERM');
      const result = await collect(child);
      assert.equal(result.code, 0, result.stderr);

      const captures = app.captures();
      const requests = captures.filter((c) => c.type === 'request');
      assert.equal(requests.length, CONCURRENT, captures.map((c) => c.name).join(', '));
      for (const capture of requests) {
        const id = capture.name.slice('GET /r/'.length);
        const rows = rowsOf(capture);
        const urls = rows.map((row) => new URL(row.url).pathname + new URL(row.url).search).sort();
        assert.deepEqual(urls, [`/a?id=${id}`, `/b?id=${id}`], `${capture.name} holds exactly its own 2 calls`);
        for (const row of rows) {
          assert.equal(row.status, 200);
          assert.deepEqual([row.origin?.file, row.origin?.line], ['gateway.cjs', line(mode)], `${capture.name}: ${row.url}`);
        }
      }
      const elsewhere = captures.filter((c) => c.type !== 'request').flatMap((c) => rowsOf(c).map((row) => `${c.name}: ${row.url}`));
      assert.deepEqual(elsewhere, [], 'no call outside its request capture');
    });
  }
});
