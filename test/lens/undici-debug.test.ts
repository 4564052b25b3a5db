import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/**
 * undici prints its own debug lines under NODE_DEBUG (Node's fetch and the `undici` package each decide, as they
 * load, whether to subscribe their loggers). The app's stderr is its own: the same lines with Probe as without.
 */
const APP = `
const http = require('node:http');
const crypto = require('node:crypto');
const undici = require('undici');
const U = process.env.UPSTREAM;
// A WebSocket server of the app's own: the handshake, then a close frame (1000).
const server = http.createServer();
server.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  socket.write(Buffer.from([0x88, 0x02, 0x03, 0xe8]));
  socket.on('data', () => socket.end());
  socket.on('error', () => {});
});
(async () => {
  await (await undici.fetch(U + '/text')).text();
  await (await undici.request(U + '/json')).body.text();
  await (await fetch(U + '/html')).text();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ws = new undici.WebSocket('ws://127.0.0.1:' + server.address().port + '/ws');
  await new Promise((resolve) => (ws.onclose = resolve));
  server.close();
  console.log('done');
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

/** undici's debug lines, ports, process ids and other numbers written as N. */
const debugLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => /^(FETCH|UNDICI|WEBSOCKET) \d+:/.test(line))
    .map((line) => line.replace(/\d+/g, 'N'));

describe("undici's NODE_DEBUG lines", () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const flag of ['fetch', 'undici', 'websocket']) {
    it(`NODE_DEBUG=${flag}: the same lines with Probe as without, and the calls recorded`, async () => {
      const env = { NODE_DEBUG: flag };
      const baseline = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'none', env });
      assert.equal(baseline.result.code, 0, baseline.result.stderr);
      const expected = debugLines(baseline.result.stderr);
      assert.ok(expected.length >= 5, `undici printed its lines:\n${baseline.result.stderr}`);
      const run = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'require', env });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.deepEqual(debugLines(run.result.stderr), expected);
      const calls = run.rows.filter((row) => row.url.startsWith(up.plain.url));
      assert.deepEqual(calls.map((row) => new URL(row.url).pathname).sort(), ['/html', '/json', '/text']);
      for (const row of calls) assert.equal(row.status, 200, row.url);
    });
  }
});
