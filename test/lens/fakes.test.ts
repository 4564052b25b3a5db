import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRow } from '../../src/capture/types';
import { ROW_KEYS, rowsFor, runLensApp, startUpstreams, type Upstreams } from './lens-app';

const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
const get = (url) => new Promise((resolve, reject) => http.get(url, (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve(res.statusCode + ' ' + t)); }).on('error', reject));
(async () => {
  const { MockAgent, setGlobalDispatcher, getGlobalDispatcher } = require('undici');
  const real = getGlobalDispatcher();
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent.get('http://mockagent.test').intercept({ path: '/m' }).reply(200, { via: 'mockagent', token: 't' }, { headers: { 'content-type': 'application/json' } });
  setGlobalDispatcher(agent);
  let r = await fetch('http://mockagent.test/m'); console.log('mockagent', await r.text());
  setGlobalDispatcher(real);

  const nock = require('nock');
  nock('http://nock.test').get('/h').reply(200, { via: 'nock-http' }).post('/f').reply(201, { via: 'nock-fetch', secret: 'x' });
  console.log('nock-http', await get('http://nock.test/h'));
  r = await fetch('http://nock.test/f', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'p', q: 1 }) });
  console.log('nock-fetch', r.status, await r.text());
  nock.restore();

  const { http: rest, HttpResponse } = require('msw');
  const { setupServer } = require('msw/node');
  const server = setupServer(rest.get('http://msw.test/x', () => HttpResponse.json({ via: 'msw' }, { status: 202 })));
  server.listen({ onUnhandledRequest: 'bypass' });
  r = await fetch('http://msw.test/x?c=msw-fetch'); console.log('msw-fetch', r.status, await r.text());
  console.log('msw-http', await get('http://msw.test/x?c=msw-http'));
  r = await fetch(U + '/json?c=passthrough'); console.log('passthrough', r.status, (await r.json()).ok);
  server.close();

  // After the fakes are gone, a second msw server is followed too, and real calls stay real.
  const again = setupServer(rest.get('http://msw2.test/y', () => HttpResponse.text('second')));
  again.listen({ onUnhandledRequest: 'bypass' });
  r = await fetch('http://msw2.test/y'); console.log('msw-again', await r.text());
  again.close();
  r = await fetch(U + '/text?c=after'); console.log('after', await r.text());
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

function fakeRow(row: HttpRow | undefined, label: string): HttpRow {
  assert.ok(row, `a row for ${label}`);
  for (const key of ROW_KEYS) assert.ok(key in row, `${label}: row has ${key}`);
  assert.equal(row.fake, true, `${label}: fake`);
  assert.equal(row.timing, null, `${label}: timing null`);
  assert.equal(row.exception, null);
  assert.equal(typeof row.duration, 'number');
  return row;
}

describe('calls answered by fakes', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const preload of ['require', 'import'] as const) {
    it(`records MockAgent, nock and msw answers as fake rows (--${preload})`, async () => {
      const run = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.match(run.result.stdout, /mockagent \{"via":"mockagent","token":"t"\}/);
      assert.match(run.result.stdout, /nock-http 200 \{"via":"nock-http"\}/);
      assert.match(run.result.stdout, /nock-fetch 201/);
      assert.match(run.result.stdout, /msw-fetch 202/);
      assert.match(run.result.stdout, /msw-again second/);
      const rows = run.rows;
      assert.equal(rows.length, 8, rows.map((r) => r.url).join('\n'));

      const mock = fakeRow(
        rows.find((r) => r.host === 'mockagent.test'),
        'MockAgent',
      );
      assert.equal(mock.status, 200);
      assert.deepEqual(mock.response_capture?.cards, { via: 'mockagent', token: '********' });

      const nockHttp = fakeRow(
        rows.find((r) => r.url === 'http://nock.test/h'),
        'nock http',
      );
      assert.equal(nockHttp.status, 200);
      assert.deepEqual(nockHttp.response_capture?.cards, { via: 'nock-http' });
      assert.ok(nockHttp.response_bytes! > 0);

      const nockFetch = fakeRow(
        rows.find((r) => r.url === 'http://nock.test/f'),
        'nock fetch',
      );
      assert.equal(nockFetch.method, 'POST');
      assert.equal(nockFetch.status, 201);
      assert.deepEqual(nockFetch.request_payload, { password: '********', q: 1 });
      assert.deepEqual(nockFetch.response_capture?.cards, { via: 'nock-fetch', secret: '********' });

      const mswFetch = fakeRow(
        rows.find((r) => r.url === 'http://msw.test/x?c=msw-fetch'),
        'msw fetch',
      );
      assert.equal(mswFetch.status, 202);
      assert.deepEqual(mswFetch.response_capture?.cards, { via: 'msw' });
      const mswHttp = fakeRow(
        rows.find((r) => r.url === 'http://msw.test/x?c=msw-http'),
        'msw http',
      );
      assert.equal(mswHttp.status, 202);
      fakeRow(
        rows.find((r) => r.host === 'msw2.test'),
        'second msw server',
      );

      for (const marker of ['passthrough', 'after']) {
        const real = rows.filter((r) => r.url.endsWith(`c=${marker}`));
        assert.equal(real.length, 1, `${marker}: one row, not one per layer`);
        assert.equal(real[0]!.fake, false);
        assert.ok(real[0]!.timing, `${marker}: real timing`);
        assert.equal(real[0]!.timing!.remote, `127.0.0.1:${up.plain.port}`);
      }
    });
  }
});

const MOCK_AGENT_REQUEST = `
const { MockAgent, setGlobalDispatcher, request, fetch } = require('undici');
const U = process.env.UPSTREAM;
(async () => {
  const agent = new MockAgent();
  agent.enableNetConnect(new URL(U).host);
  const pool = agent.get('http://mock.test');
  const reply = (path) => pool.intercept({ path, method: 'POST' }).reply(201, { via: 'mock', token: 't' }, { headers: { 'content-type': 'application/json' } });
  reply('/by-fetch'); reply('/by-request'); reply('/by-agent');
  setGlobalDispatcher(agent);
  const body = JSON.stringify({ password: 'p', q: 1 });
  const headers = { 'content-type': 'application/json' };
  const f = await fetch('http://mock.test/by-fetch', { method: 'POST', headers, body });
  console.log('fetch', f.status, await f.text());
  const r = await request('http://mock.test/by-request', { method: 'POST', headers, body });
  console.log('request', r.statusCode, await r.body.text());
  const a = await agent.request({ origin: 'http://mock.test', path: '/by-agent', method: 'POST', headers, body });
  console.log('agent', a.statusCode, await a.body.text());
  // Let through to the network by the same agent: a real call.
  const real = await request(U + '/json?c=through');
  console.log('through', real.statusCode, (await real.body.json()).ok);
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

describe('undici request() answered by MockAgent', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  it("is a fake row like the same agent's answer to fetch(); a call it lets through is real", async () => {
    const run = await runLensApp(up, { 'app.js': MOCK_AGENT_REQUEST }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    for (const name of ['fetch', 'request', 'agent']) assert.match(run.result.stdout, new RegExp(`${name} 201 \\{"via":"mock","token":"t"\\}`));
    assert.match(run.result.stdout, /through 200 true/);
    const rows = run.rows;
    assert.equal(rows.length, 4, rows.map((r) => r.url).join('\n'));
    // The oracle: what Probe records of the agent's answer to fetch(), the row its docs promise.
    const shape = (row: HttpRow) => ({
      method: row.method,
      status: row.status,
      fake: row.fake,
      timing: row.timing,
      failed: row.failed,
      request_payload: row.request_payload,
      request_headers: row.request_headers?.['content-type'],
      response_headers: row.response_headers?.['content-type'],
      response_capture: row.response_capture,
      response_bytes: row.response_bytes,
    });
    const byFetch = fakeRow(
      rows.find((r) => r.url === 'http://mock.test/by-fetch'),
      'fetch',
    );
    for (const path of ['/by-request', '/by-agent']) {
      const row = fakeRow(
        rows.find((r) => r.url === `http://mock.test${path}`),
        path,
      );
      assert.deepEqual(shape(row), shape(byFetch), path);
      assert.ok(row.origin, `${path}: the app's code line`);
    }
    const through = rows.filter((r) => r.url.endsWith('c=through'));
    assert.equal(through.length, 1, 'one row for the call let through');
    assert.equal(through[0]!.fake, false);
    assert.equal(through[0]!.timing!.remote, `127.0.0.1:${up.plain.port}`);
  });
});

const NOCK_ALLOW_UNMOCKED = `
const http = require('node:http');
const nock = require('nock');
const U = process.env.UPSTREAM;
const get = (url) => new Promise((resolve, reject) => http.get(url, (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve(res.statusCode + ' ' + t)); }).on('error', reject));
(async () => {
  nock(U, { allowUnmocked: true }).get('/mocked').reply(200, 'from nock').get('/mocked-fetch').reply(200, 'from nock');
  console.log('mocked', await get(U + '/mocked'));
  console.log('unmocked', await get(U + '/json?c=unmocked-http'));
  let r = await fetch(U + '/mocked-fetch'); console.log('mocked-fetch', await r.text());
  r = await fetch(U + '/json?c=unmocked-fetch'); console.log('unmocked-fetch', r.status, (await r.json()).ok);
  nock.restore();
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

describe('a call nock lets through (allowUnmocked)', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  it("is the real server's row, not a fake; the calls nock answers stay fake", async () => {
    const run = await runLensApp(up, { 'app.js': NOCK_ALLOW_UNMOCKED }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    // The oracle: what the app got is the real server's answer, or nock's.
    assert.match(run.result.stdout, /mocked 200 from nock/);
    assert.match(run.result.stdout, /unmocked 200 \{"ok":true/);
    assert.match(run.result.stdout, /unmocked-fetch 200 true/);
    const rows = run.rows;
    assert.equal(rows.length, 4, rows.map((r) => r.url).join('\n'));
    for (const path of ['/mocked', '/mocked-fetch']) fakeRow(rowsFor(rows, path)[0], path);
    for (const path of ['/json?c=unmocked-http', '/json?c=unmocked-fetch']) {
      const row = rowsFor(rows, path)[0];
      assert.ok(row, path);
      assert.equal(row.fake, false, `${path}: the real server answered`);
      assert.equal(row.timing?.remote, `127.0.0.1:${up.plain.port}`, path);
      assert.equal(row.status, 200);
    }
  });
});
