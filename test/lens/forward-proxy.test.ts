import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/*
 * A call through a forward proxy over node:http names its target whole in the request line (absolute form): the
 * row's URL and host are the target's, whatever client sent it (axios's `proxy` option, a plain http.request).
 */

let up: Upstreams;
let proxy: http.Server;
let proxyPort: number;
const proxied: string[] = [];

before(async () => {
  up = await startUpstreams();
  // A forward proxy: takes the absolute-form target of each request and asks it.
  proxy = http.createServer((req, res) => {
    proxied.push(req.url ?? '');
    const forward = http.request(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
});
after(async () => {
  await up.close();
  await new Promise((resolve) => proxy.close(resolve));
});

const SCRIPT = `
const http = require('node:http');
const axios = require('axios');
const target = new URL(process.env.UPSTREAM);
const proxy = { protocol: 'http', host: '127.0.0.1', port: Number(process.env.PROXY_PORT) };
(async () => {
  const a = await axios.get(process.env.UPSTREAM + '/json?c=axios', { proxy });
  console.log('axios', a.status);
  await new Promise((resolve, reject) => {
    const path = process.env.UPSTREAM + '/json?c=plain';
    http.get({ host: proxy.host, port: proxy.port, path, headers: { host: target.host } }, (res) => {
      res.resume();
      res.on('end', () => (console.log('plain', res.statusCode), resolve()));
    }).on('error', reject);
  });
})();
`;

test('a call through a forward proxy is a row of its target: URL and host', async () => {
  const env = { PROXY_PORT: String(proxyPort) };
  const without = await runLensApp(up, { 'app.js': SCRIPT }, 'app.js', { preload: 'none', env });
  const run = await runLensApp(up, { 'app.js': SCRIPT }, 'app.js', { env });
  assert.equal(run.result.stdout, without.result.stdout, run.result.stderr);
  assert.equal(proxied.length, 4, `both runs went through the proxy: ${proxied.join(' ')} ${without.result.stdout} ${without.result.stderr}`);
  const target = new URL(up.plain.url);
  assert.deepEqual(
    run.rows.map((row) => [row.url, row.host]),
    [
      [`${up.plain.url}/json?c=axios`, target.host],
      [`${up.plain.url}/json?c=plain`, target.host],
    ],
  );
});
