import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { connectMcp } from '../helpers/mcp';
import { RedisServer } from '../helpers/redis';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { RedisStore } from '../../src/store/RedisStore';

describe('probe mcp reads the store the app config selects', () => {
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    await redis?.kill();
  });

  test('a Redis-backed store, including captures written while the server runs', async () => {
    const prefix = 'mcp-test:';
    const writer = new RedisStore({ url: redis.url, prefix, ttl: 3600, limit: 200 });
    const [order, sync, seed] = fixtureCaptures();
    await writer.put(order!);
    await writer.put(sync!);
    await writer.close();

    const app = new TestApp({ 'probe.config.json': JSON.stringify({ storage: { driver: 'redis', redis: { url: redis.url, prefix } } }) });
    const mcp = await connectMcp(app);
    try {
      assert.deepEqual(
        (await mcp.call('probe-list')).json.captures.map((row: { id: string }) => row.id),
        [IDS.sync, IDS.order],
      );
      const failed = await mcp.call('probe-rows', {
        section: 'http',
        id: IDS.order,
        where: [{ field: 'failed', op: '=', value: 'true' }],
        fields: ['row', 'status'],
      });
      assert.deepEqual(failed.json.rows, [
        { row: 1, status: 502 },
        { row: 2, status: null },
      ]);
      const late = new RedisStore({ url: redis.url, prefix, ttl: 3600, limit: 200 });
      await late.put(seed!);
      await late.close();
      assert.equal((await mcp.call('probe-show')).json.id, IDS.seed);
      // Across captures, from Redis too: newest capture first, each row naming its capture.
      const across = await mcp.call('probe-rows', { since: '1d', fields: ['status'] });
      assert.deepEqual(
        across.json.rows.map((row: { capture_id: string }) => row.capture_id),
        [IDS.sync, IDS.sync, IDS.order, IDS.order, IDS.order],
      );
    } finally {
      await mcp.close();
    }
  });

  test('a Redis server that is down is a tool error, not a crash', async () => {
    const app = new TestApp({ 'probe.config.json': JSON.stringify({ storage: { driver: 'redis', redis: { url: 'redis://127.0.0.1:1' } } }) });
    const mcp = await connectMcp(app);
    try {
      const result = await mcp.call('probe-list');
      assert.equal(result.isError, true);
      assert.match(result.text, /could not read the store: Redis at redis:\/\/127\.0\.0\.1:1\/? is unreachable/);
      assert.equal((await mcp.call('probe-rows', { since: '1h' })).isError, true);
      // A reader has no captures waiting: the writer's queue warning would only mislead.
      assert.doesNotMatch(mcp.stderr(), /captures wait in a queue/);
    } finally {
      await mcp.close();
    }
  });
});

test('a custom driver registered in the config file', async () => {
  const app = new TestApp();
  const folder = path.join(app.dir, '.probe', 'custom');
  mkdirSync(folder, { recursive: true });
  for (const capture of fixtureCaptures()) writeFileSync(path.join(folder, `${capture.id}.json`), JSON.stringify(capture));
  const indexRow = JSON.stringify(path.join(REPO_ROOT, 'dist', 'capture', 'indexRow.js'));
  app.write(
    'probe.config.mjs',
    `import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import indexRows from ${indexRow};
const folder = path.join(process.cwd(), '.probe', 'custom');
const all = () => readdirSync(folder).map((name) => JSON.parse(readFileSync(path.join(folder, name), 'utf8')));
export default {
  storage: { driver: 'jsondir' },
  register(probe) {
    probe.extendStore('jsondir', () => ({
      async put() { throw new Error('the MCP server must never write'); },
      async find(id) { return all().find((capture) => capture.id === id) ?? null; },
      async index() { return all().sort((a, b) => b.started_at - a.started_at).map(indexRows.indexRowOf); },
      async clear() { throw new Error('the MCP server must never write'); },
    }));
  },
};
`,
  );
  const mcp = await connectMcp(app);
  try {
    assert.deepEqual(
      (await mcp.call('probe-list', { type: 'request' })).json.captures.map((row: { id: string }) => row.id),
      [IDS.order],
    );
    const rows = await mcp.call('probe-rows', { section: 'queries', fields: ['row', 'sql'] });
    assert.deepEqual(rows.json.rows, [{ row: 0, sql: 'select 1' }]);
  } finally {
    await mcp.close();
  }
});

test('a bad config is one line on stderr and exit code 2', async () => {
  const app = new TestApp({ 'probe.config.json': JSON.stringify({ storage: { driver: 'nope' } }) });
  const result = await app.cli(['mcp']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^probe: bad configuration: .*storage\.driver.*\n$/);
  assert.equal(result.stdout, '');
});
