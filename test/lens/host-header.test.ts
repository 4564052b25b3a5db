// A caller may set its own Host header, without the port (New Relic's collector client does): the row's URL
// still names where the request went (host and port from the call's arguments), and request_headers keep the
// Host header as sent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, rowsFor, startUpstreams, type Upstreams } from './lens-app';

const APP = `
const http = require('node:http');
const https = require('node:https');
const up = new URL(process.env.UPSTREAM);
const tls = new URL(process.env.UPSTREAM_TLS);
const done = (req) => new Promise((ok, fail) => req.on('response', (res) => { res.resume(); res.on('end', ok); }).on('error', fail).end());
(async () => {
  await done(http.request({ host: up.hostname, port: up.port, path: '/json?c=options', headers: { host: up.hostname } }));
  await done(http.request(up.origin + '/json?c=url', { headers: { Host: 'virtual.test' } }));
  await done(https.request({ hostname: tls.hostname, port: Number(tls.port), path: '/json?c=tls', headers: { host: tls.hostname } }));
  await done(http.request(up.origin + '/json?c=plain'));
  console.log('done');
})();
`;

describe('a Host header without the port', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  it('leaves the URL with the real host and port, and the header as sent', async () => {
    const run = await runLensApp(up, { 'app.js': APP }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    const [options] = rowsFor(run.rows, '/json?c=options');
    assert.equal(options?.url, `http://127.0.0.1:${up.plain.port}/json?c=options`);
    assert.equal(options?.request_headers.host, '127.0.0.1');
    const [url] = rowsFor(run.rows, '/json?c=url');
    assert.equal(url?.url, `http://127.0.0.1:${up.plain.port}/json?c=url`);
    assert.equal(url?.request_headers.host, 'virtual.test');
    const [tls] = rowsFor(run.rows, '/json?c=tls');
    const tlsHost = new URL(up.tls.url).hostname;
    assert.equal(tls?.url, `https://${tlsHost}:${up.tls.port}/json?c=tls`);
    assert.equal(tls?.request_headers.host, tlsHost);
    const [plain] = rowsFor(run.rows, '/json?c=plain');
    assert.equal(plain?.url, `http://127.0.0.1:${up.plain.port}/json?c=plain`);
    assert.equal(plain?.request_headers.host, `127.0.0.1:${up.plain.port}`);
  });
});
