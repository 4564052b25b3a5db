import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

/** probe-rows with group_by through the real MCP client against `probe mcp`, and `probe rows --group-by`. */
describe('aggregates: probe-rows group_by and probe rows --group-by', { timeout: 60_000 }, () => {
  const app = new TestApp();
  let mcp: McpSession;
  before(async () => {
    await seedFileStore(app, fixtureCaptures());
    mcp = await connectMcp(app);
  });
  after(async () => {
    await mcp?.close();
  });

  test('one group per endpoint, sorted by p95 desc, where applied first, one example each', async () => {
    const slow = await mcp.call('probe-rows', { id: '*', group_by: 'endpoint', sort: 'p95', dir: 'desc', limit: 2 });
    assert.equal(slow.isError, undefined, slow.text);
    assert.equal(slow.json.group_by, 'endpoint');
    assert.equal(slow.json.group_count, 5);
    assert.deepEqual(
      slow.json.groups.map((group: { key: string; p95: number; example: object }) => [group.key, group.p95, group.example]),
      [
        ['POST https://payments.example.test/charge', 800, { capture_id: IDS.order, row: 1 }],
        ['GET https://api.example.test/orders/{id}', 120, { capture_id: IDS.order, row: 0 }],
      ],
    );
    const failing = await mcp.call('probe-rows', { since: '1d', group_by: 'host', where: [{ field: 'failed', op: '=', value: 'true' }] });
    assert.deepEqual(
      failing.json.groups.map((group: { key: string; count: number; failed: number }) => [group.key, group.count, group.failed]),
      [
        ['payments.example.test', 1, 1],
        ['inventory.example.test:8080', 1, 1],
      ],
    );
    const newest = await mcp.call('probe-rows', { group_by: 'method' });
    assert.equal(newest.json.id, IDS.sync);
    assert.deepEqual(
      newest.json.groups.map((group: { key: string }) => group.key),
      ['GET', 'PUT'],
    );
  });

  test('a bad group_by or sort is a tool error listing the valid values', async () => {
    const bad = await mcp.call('probe-rows', { id: '*', group_by: 'nope' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /unknown field "nope" in group_by.*Valid values:.*endpoint/);
    const sort = await mcp.call('probe-rows', { id: '*', group_by: 'host', sort: 'duration' });
    assert.equal(sort.isError, true);
    assert.match(sort.text, /Valid values: count, failed, p50, p95, max, bytes, first, last, key/);
  });

  test('the tool list mentions group_by', async () => {
    const { tools } = await mcp.client.listTools();
    const rows = tools.find((tool) => tool.name === 'probe-rows')!;
    assert.ok('group_by' in (rows.inputSchema.properties ?? {}));
    assert.match(rows.description ?? '', /group_by/);
  });

  test('probe rows --group-by: a table by default, the same JSON with --json', async () => {
    const table = await app.cli(['rows', '*', '--group-by', 'endpoint', '--sort', 'max', '--limit', '3']);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.split('\n');
    assert.match(lines[0]!, /^ENDPOINT\s+COUNT\s+FAILED\s+P50\s+P95\s+MAX\s+BYTES\s+FIRST \(UTC\)\s+LAST \(UTC\)\s+EXAMPLE$/);
    assert.match(
      lines[1]!,
      new RegExp(`^POST https://payments\\.example\\.test/charge\\s+1\\s+1\\s+800ms\\s+800ms\\s+800ms\\s+43B\\s+\\S+\\s+\\S+\\s+${IDS.order} row 1$`),
    );
    assert.match(table.stdout, /3 of 5 groups by endpoint over 5 matching http rows \(5 in 2 captures\)/);
    const json = JSON.parse((await app.cli(['rows', '--since', '1d', '--group-by', 'status', '--where', 'failed=false', '--json'])).stdout);
    assert.deepEqual(
      json.groups.map((group: { key: number; count: number }) => [group.key, group.count]),
      [
        [200, 2],
        [204, 1],
      ],
    );
    const bad = await app.cli(['rows', '*', '--group-by', 'host', '--fields', 'url']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /probe rows: fields does not apply with group_by/);
  });
});
