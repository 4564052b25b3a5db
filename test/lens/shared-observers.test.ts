import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, rowsFor, startUpstreams, type Upstreams } from './lens-app';

/**
 * The node:http lens observes each request through functions shared by every request, not closures made per
 * request: an app that compares two requests' (or two responses') methods sees what it sees without Probe, where
 * per-request closures made them differ. The oracle is the same app run without Probe; the rows' byte counts
 * prove the observers still see every body.
 */
const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const call = (path, body) => new Promise((resolve, reject) => {
  const req = http.request(U + path, { agent, method: body ? 'POST' : 'GET', headers: { 'content-type': 'text/plain' } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => resolve({ req, res, text: Buffer.concat(chunks).toString() }));
  });
  req.on('error', reject);
  req.end(body);
});
(async () => {
  const a = await call('/echo', 'first body');
  const b = await call('/echo', 'second body');
  const same = (name, x, y) => console.log(name, x === y);
  for (const m of ['write', 'end', 'emit']) same('request ' + m, a.req[m], b.req[m]);
  for (const m of ['push', 'emit']) same('response ' + m, a.res[m], b.res[m]);
  console.log('keys', JSON.stringify(Object.keys(a.req).filter((k) => !['write', 'end', 'emit'].includes(k)).length === Object.keys(b.req).filter((k) => !['write', 'end', 'emit'].includes(k)).length));
  console.log('bodies', a.text, b.text);
  agent.destroy();
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

describe('node:http observers', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  it('are shared by every request: methods compare as without Probe, and every body is kept', async () => {
    const baseline = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'none' });
    assert.equal(baseline.result.code, 0, baseline.result.stderr);
    const run = await runLensApp(up, { 'app.js': APP }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    assert.equal(run.result.stdout, baseline.result.stdout);
    const rows = rowsFor(run.rows, '/echo');
    assert.equal(rows.length, 2);
    assert.deepEqual(
      rows.map((row) => [row.status, row.request_bytes, row.response_bytes]),
      [
        [200, Buffer.byteLength('first body'), Buffer.byteLength('first body')],
        [200, Buffer.byteLength('second body'), Buffer.byteLength('second body')],
      ],
    );
  });
});
