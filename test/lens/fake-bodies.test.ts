import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRow } from '../../src/capture/types';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const CONFIG = `module.exports = { lenses: { HttpClientLens: { bodies: true, max_body_bytes: 4096 } } };`;

/**
 * Every body type fetch takes, sent to msw, nock and MockAgent. The fakes echo what they read, and the app
 * prints it: the same lines with and without Probe show the fakes saw the same bodies.
 */
const APP = `
const { http: rest, HttpResponse } = require('msw');
const { setupServer } = require('msw/node');
const stream = (...parts) => new ReadableStream({ start(c) { for (const p of parts) c.enqueue(new TextEncoder().encode(p)); c.close(); } });
const big = () => { let left = 10; return new ReadableStream({ pull(c) { if (left-- === 0) return c.close(); c.enqueue(new Uint8Array(1000).fill(120)); } }); };
const bytes = new Uint8Array([104, 101, 108, 108, 111, 33, 33]);
const form = () => { const f = new FormData(); f.append('name', 'n'); f.append('secret', 's3'); return f; };
const bodies = {
  blob: () => ({ body: new Blob(['{"a":1,"password":"p"}'], { type: 'application/json' }) }),
  form: () => ({ body: form() }),
  stream: () => ({ body: stream('ab', 'cd', 'ef'), duplex: 'half' }),
  arraybuffer: () => ({ body: bytes.slice().buffer }),
  dataview: () => ({ body: new DataView(bytes.slice().buffer, 1, 4) }),
  int16: () => ({ body: new Int16Array([0x6968, 0x2121]) }),
  big: () => ({ body: big(), duplex: 'half' }),
};
const describeEcho = (name, text) => name === 'form' ? 'multipart ' + /name="name"\\r\\n\\r\\nn\\r\\n/.test(text) + ' ' + /name="secret"\\r\\n\\r\\ns3/.test(text) : text.length + ' ' + text.slice(0, 30);
(async () => {
  const server = setupServer(rest.post('http://msw.test/:name', async ({ request }) => HttpResponse.text(await request.text())));
  server.listen({ onUnhandledRequest: 'error' });
  for (const [name, make] of Object.entries(bodies)) {
    const r = await fetch('http://msw.test/' + name, { method: 'POST', ...make() });
    console.log('msw', name, r.status, describeEcho(name, await r.text()));
  }
  const req = new Request('http://msw.test/request', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: 1, token: 't' }) });
  let r = await fetch(req);
  console.log('msw request', r.status, await r.text(), req.bodyUsed);
  const streamed = new Request('http://msw.test/request-stream', { method: 'POST', body: stream('x', 'y', 'z'), duplex: 'half' });
  r = await fetch(streamed);
  console.log('msw request-stream', r.status, await r.text(), streamed.bodyUsed);
  server.close();

  const nock = require('nock');
  const scope = nock('http://nock.test').persist().post(/.*/).reply(200, (uri, body) => (typeof body === 'string' ? body : JSON.stringify(body)));
  for (const name of ['stream', 'blob', 'form']) {
    r = await fetch('http://nock.test/' + name, { method: 'POST', ...bodies[name]() });
    console.log('nock', name, r.status, describeEcho(name, await r.text()));
  }
  scope.persist(false);
  nock.cleanAll();
  nock.restore();

  const { MockAgent, setGlobalDispatcher, getGlobalDispatcher } = require('undici');
  const real = getGlobalDispatcher();
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get('http://mockagent.test');
  for (const name of ['stream', 'arraybuffer', 'form']) pool.intercept({ path: '/' + name, method: 'POST' }).reply(200, 'ok');
  setGlobalDispatcher(agent);
  for (const name of ['stream', 'arraybuffer', 'form']) {
    r = await fetch('http://mockagent.test/' + name, { method: 'POST', ...bodies[name]() });
    console.log('mockagent', name, r.status, await r.text());
  }
  setGlobalDispatcher(real);
  await agent.close();
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

describe('request bodies of calls answered by fakes', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const preload of ['require', 'import'] as const) {
    it(`keeps Blob, FormData, stream, ArrayBuffer, DataView, typed array and Request bodies, unchanged for the fake (--${preload})`, async () => {
      const files = { 'app.js': APP, 'probe.config.js': CONFIG };
      const bare = await runLensApp(up, files, 'app.js', { preload: 'none' });
      const run = await runLensApp(up, files, 'app.js', { preload });
      assert.equal(bare.result.code, 0, bare.result.stderr);
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.result.stdout, bare.result.stdout, 'the fakes read the same bodies');
      assert.match(run.result.stdout, /msw stream 200 6 abcdef/);
      assert.match(run.result.stdout, /msw big 200 10000 x/);
      assert.match(run.result.stdout, /msw form 200 multipart true true/);
      assert.match(run.result.stdout, /msw request 200 \{"q":1,"token":"t"\} true/);
      assert.match(run.result.stdout, /msw request-stream 200 xyz true/);
      assert.match(run.result.stdout, /nock stream 200 6 abcdef/);

      const rows = run.rows;
      const row = (url: string): HttpRow => {
        const found = rows.filter((r) => r.url === url);
        assert.equal(found.length, 1, `one row for ${url}: ${rows.map((r) => r.url).join(', ')}`);
        assert.equal(found[0]!.fake, true, `${url}: fake`);
        return found[0]!;
      };
      for (const host of ['msw', 'nock']) {
        const s = row(`http://${host}.test/stream`);
        assert.equal(s.request_bytes, 6);
        assert.equal(s.request_body, 'abcdef');
        const blob = row(`http://${host}.test/blob`);
        assert.equal(blob.request_bytes, Buffer.byteLength('{"a":1,"password":"p"}'));
        assert.equal(blob.request_headers['content-type'], 'application/json', 'the Blob type is the content type fetch sends');
        assert.deepEqual(blob.request_payload, { a: 1, password: '********' });
        const form = row(`http://${host}.test/form`);
        assert.match(form.request_headers['content-type'] as string, /^multipart\/form-data; boundary=/);
        assert.match(form.request_body!, /name="name"\r\n\r\nn\r\n/);
        assert.ok(form.request_bytes > 100);
      }
      assert.equal(row('http://msw.test/arraybuffer').request_body, 'hello!!');
      assert.equal(row('http://msw.test/dataview').request_bytes, 4);
      assert.equal(row('http://msw.test/dataview').request_body, 'ello');
      assert.equal(row('http://msw.test/int16').request_body, 'hi!!');
      const bigRow = row('http://msw.test/big');
      assert.equal(bigRow.truncated, true, 'a body past max_body_bytes is kept truncated');
      assert.ok(bigRow.request_bytes >= 4096);
      assert.equal(bigRow.request_body!.length, 4096);
      const request = row('http://msw.test/request');
      assert.equal(request.method, 'POST');
      assert.deepEqual(request.request_payload, { q: 1, token: '********' });
      assert.equal(row('http://msw.test/request-stream').request_body, 'xyz');

      assert.equal(row('http://mockagent.test/stream').request_body, 'abcdef');
      assert.equal(row('http://mockagent.test/arraybuffer').request_body, 'hello!!');
      assert.match(row('http://mockagent.test/form').request_body!, /name="secret"\r\n\r\ns3/);
    });
  }
});
