import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture, HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';

/**
 * An app using undici 7's interceptors (`Agent#compose`) against its own loopback upstream: `/cached` answers
 * with `cache-control: max-age=60`, `/flaky/<key>` answers 503 twice per key, then 200. A front server's route
 * calls through the retry interceptor too, so its retries must land in that request's capture. Each call's
 * expected origin is the line of its `// call:` marker.
 */
const APP = `
const http = require('node:http');
const { Agent, interceptors, request, fetch: undiciFetch } = require('undici');
const seen = {};
const upstream = http.createServer((req, res) => {
  if (req.url.startsWith('/flaky/')) {
    seen[req.url] = (seen[req.url] ?? 0) + 1;
    res.statusCode = seen[req.url] <= 2 ? 503 : 200;
    return res.end(res.statusCode === 200 ? 'fine' : 'busy');
  }
  res.setHeader('cache-control', 'public, max-age=60');
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ cached: req.url }));
});
const cache = new Agent().compose(interceptors.cache());
const retry = new Agent().compose(interceptors.retry({ maxRetries: 3, minTimeout: 5, timeoutFactor: 1, statusCodes: [503] }));
const front = http.createServer(async (req, res) => {
  const answer = await request(base + '/flaky/front', { dispatcher: retry }); // call: front
  res.end(String(answer.statusCode) + ' ' + (await answer.body.text()));
});
let base;
upstream.listen(0, '127.0.0.1', () => front.listen(0, '127.0.0.1', main));
async function main() {
  base = 'http://127.0.0.1:' + upstream.address().port;
  const out = [];
  let r = await request(base + '/cached', { dispatcher: cache }); // call: miss
  out.push(r.statusCode + ' ' + (await r.body.text()));
  r = await request(base + '/cached', { dispatcher: cache }); // call: request-hit
  out.push(r.statusCode + ' ' + (await r.body.text()));
  let f = await undiciFetch(base + '/cached', { dispatcher: cache }); // call: undici-fetch-hit
  out.push(f.status + ' ' + (await f.text()));
  f = await fetch(base + '/cached', { dispatcher: cache }); // call: global-fetch-hit
  out.push(f.status + ' ' + (await f.text()));
  r = await request(base + '/flaky/request', { dispatcher: retry }); // call: request-retry
  out.push(r.statusCode + ' ' + (await r.body.text()));
  f = await fetch(base + '/flaky/fetch', { dispatcher: retry }); // call: global-fetch-retry
  out.push(f.status + ' ' + (await f.text()));
  const port = front.address().port;
  out.push(await new Promise((resolve, reject) => http.get('http://127.0.0.1:' + port + '/front', (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve(t)); }).on('error', reject))); // call: to-front
  console.log(out.join('\\n'));
  upstream.close();
  front.close();
  await Promise.all([cache.close(), retry.close()]);
}
`;

const line = (marker: string) => APP.split('\n').findIndex((text) => text.includes(`// call: ${marker}`)) + 1;
const pathOf = (row: HttpRow) => new URL(row.url).pathname;
const rowsOf = (capture: Capture | undefined) => (capture?.sections.http ?? []) as HttpRow[];

describe('undici interceptors', () => {
  for (const preload of ['require', 'import'] as const) {
    it(`cache hits are rows marked cache: hit, retries carry the origin of the call (--${preload})`, async () => {
      const app = new TestApp({ 'app.js': APP });
      const plain = await app.run('app.js', { preload: 'none', timeout: 60_000 });
      const run = await app.run('app.js', { preload, timeout: 60_000 });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, plain.stdout, 'the app sees the same answers');
      assert.equal(run.stderr, '');
      const captures = app.captures();
      const command = captures.find((capture) => capture.type === 'command');
      const rows = rowsOf(command);

      // The cache: one request went out; the three answers from the store are rows with the mark and no timing.
      const cached = rows.filter((row) => pathOf(row) === '/cached');
      assert.deepEqual(
        cached.map((row) => [row.origin?.line, row.status, row.cache ?? null, row.timing === null, row.fake]),
        [
          [line('miss'), 200, null, false, false],
          [line('request-hit'), 200, 'hit', true, false],
          [line('undici-fetch-hit'), 200, 'hit', true, false],
          [line('global-fetch-hit'), 200, 'hit', true, false],
        ],
      );
      for (const hit of cached.slice(1)) {
        assert.equal(hit.origin?.file, 'app.js');
        assert.equal(hit.method, 'GET');
        assert.equal(hit.response_bytes, JSON.stringify({ cached: '/cached' }).length);
        assert.deepEqual(hit.response_capture?.cards, { cached: '/cached' });
        assert.equal(hit.response_headers['cache-control'], 'public, max-age=60');
        assert.equal(typeof hit.duration, 'number');
      }

      // The retries: every attempt a row of the unit that made the call, with the line of that call.
      for (const [key, marker] of [
        ['request', 'request-retry'],
        ['fetch', 'global-fetch-retry'],
      ]) {
        const attempts = rows.filter((row) => pathOf(row) === `/flaky/${key}`);
        assert.deepEqual(
          attempts.map((row) => [row.status, row.origin?.file, row.origin?.line]),
          [
            [503, 'app.js', line(marker)],
            [503, 'app.js', line(marker)],
            [200, 'app.js', line(marker)],
          ],
          key,
        );
      }
      const frontCapture = captures.find((capture) => capture.type === 'request' && capture.name === 'GET /front');
      assert.deepEqual(
        rowsOf(frontCapture).map((row) => [pathOf(row), row.status, row.origin?.line]),
        [
          ['/flaky/front', 503, line('front')],
          ['/flaky/front', 503, line('front')],
          ['/flaky/front', 200, line('front')],
        ],
      );
      assert.ok(!rows.some((row) => pathOf(row) === '/flaky/front'), "the front request's retries are not the command's");

      // The mark is a field the agent tools filter on.
      const listed = await app.cli(['rows', '*', '--where', 'cache=hit', '--fields', 'url,cache', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      const hits = (JSON.parse(listed.stdout) as { rows: Array<{ cache: string }> }).rows;
      assert.deepEqual(
        hits.map((row) => row.cache),
        ['hit', 'hit', 'hit'],
      );
    });
  }
});
