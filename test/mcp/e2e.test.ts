import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp, eventually, waitForLine } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { RedisServer, freePort } from '../helpers/redis';
import { connectMcp, type McpSession } from '../helpers/mcp';

// A real app under the preload; the MCP server is started first, so every capture it reads was written
// after it started, by another process.
const SERVER = `
const http = require('node:http');
const UP = process.env.UP;
const server = http.createServer(async (req, res) => {
  await fetch(UP + '/json?token=abc').then((r) => r.json());
  await fetch(UP + '/status/503').then((r) => r.text());
  await fetch('http://127.0.0.1:' + process.env.CLOSED_PORT + '/nothing').catch(() => {});
  await fetch(UP + '/slow?ms=30').then((r) => r.text());
  res.writeHead(500).end('upstream trouble');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

async function recordAndQuery(app: TestApp, upstream: Upstream, mcp: McpSession): Promise<void> {
  const empty = await mcp.call('probe-list');
  assert.equal(empty.isError, undefined);
  assert.deepEqual(empty.json.captures, []);

  const child = app.spawn('server.js', { env: { UP: upstream.url, CLOSED_PORT: String(await freePort()) } });
  try {
    const [, port] = await waitForLine(child, /listening (\d+)/);
    const res = await fetch(`http://127.0.0.1:${port}/orders/7?x=1`);
    assert.equal(res.status, 500);
    await res.text();

    const listed = await eventually(async () => {
      const result = await mcp.call('probe-list', { has_errors: true, type: 'request', since: '1h' });
      return result.json.captures.length > 0 && result.json;
    });
    const row = listed.captures[0];
    assert.equal(row.name, 'GET /orders/7');
    assert.equal(row.status, '500');
    assert.equal(row.counts.http, 4);

    const shown = await mcp.call('probe-show', { id: row.id, sections: ['request', 'http'], limit: 2 });
    assert.equal(shown.json.summary.totals.http_calls, 4);
    assert.equal(shown.json.summary.totals.http_failed, 2);
    assert.equal(shown.json.sections.request.path, '/orders/7');
    assert.equal(shown.json.sections.http.total, 4);
    assert.equal(shown.json.sections.http.shown, 2);

    const failed = await mcp.call('probe-rows', {
      section: 'http',
      where: [{ field: 'failed', op: '=', value: 'true' }],
      fields: ['row', 'url', 'status', 'exception.message', 'exception.previous', 'origin.file', 'origin.line'],
    });
    assert.equal(failed.json.id, row.id);
    assert.equal(failed.json.rows.length, 2);
    const [unavailable, refused] = failed.json.rows;
    assert.equal(unavailable.row, 1);
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable['exception.message'], null);
    assert.equal(unavailable['origin.file'], 'server.js');
    assert.equal(unavailable['origin.line'], 6);
    assert.equal(refused.row, 2);
    assert.equal(refused.status, null);
    assert.match(JSON.stringify(refused['exception.previous']) + refused['exception.message'], /ECONNREFUSED/);

    const masked = await mcp.call('probe-rows', {
      section: 'http',
      where: [{ field: 'url', op: 'contains', value: '/json' }],
      fields: ['url', 'response_capture.capture'],
    });
    assert.deepEqual(masked.json.rows, [{ url: `${upstream.url}/json?token=********`, 'response_capture.capture': 'JsonCapture' }]);

    const sorted = await mcp.call('probe-rows', { section: 'http', sort: 'duration', dir: 'desc', fields: ['duration'] });
    const durations = sorted.json.rows.map((r: { duration: number }) => r.duration);
    assert.deepEqual(
      durations,
      [...durations].sort((a, b) => b - a),
    );
  } finally {
    child.kill();
  }
}

describe('end to end: a real app under the preload, read through the MCP client', () => {
  let upstream: Upstream;
  let redis: RedisServer;
  before(async () => {
    upstream = await startUpstream();
    redis = await RedisServer.start();
  });
  after(async () => {
    await upstream?.close();
    await redis?.kill();
  });

  test('file store (the default)', async () => {
    const app = new TestApp({ 'server.js': SERVER });
    const mcp = await connectMcp(app);
    try {
      await recordAndQuery(app, upstream, mcp);
    } finally {
      await mcp.close();
    }
  });

  test('Redis store, selected by the same config file for the app and the server', async () => {
    const app = new TestApp({
      'server.js': SERVER,
      'probe.config.json': JSON.stringify({ storage: { driver: 'redis', redis: { url: redis.url, prefix: 'e2e-mcp:' } } }),
    });
    const mcp = await connectMcp(app);
    try {
      await recordAndQuery(app, upstream, mcp);
      assert.deepEqual(app.captures(), [], 'nothing went to the file store');
    } finally {
      await mcp.close();
    }
  });
});
