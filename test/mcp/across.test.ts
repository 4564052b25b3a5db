import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { connectMcp, type McpSession } from '../helpers/mcp';
import type { HttpRow } from '../../src/capture/types';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

/** The "across captures" points, through the real MCP client against `probe mcp` as a child process. */
describe('probe mcp: rows across captures, exact fields, one row whole', () => {
  const app = new TestApp();
  let mcp: McpSession;
  before(async () => {
    // The request is 3 h old, the job 40 min, the command (no http rows) 10 s.
    const [order, sync, seed] = fixtureCaptures();
    await seedFileStore(app, [
      order!,
      { ...sync!, sections: { http: [{ ...(sync!.sections.http as HttpRow[])[0], response_body: 'y'.repeat(9000) }, (sync!.sections.http as HttpRow[])[1]] } },
      seed!,
    ]);
    mcp = await connectMcp(app);
  });
  after(async () => {
    await mcp?.close();
  });

  test('since: every capture started within it, newest first, each row with capture_id and capture_name', async () => {
    const hour = await mcp.call('probe-rows', { since: '1h', fields: ['status'] });
    assert.equal(hour.isError, undefined, hour.text);
    assert.equal(hour.json.id, '*');
    assert.equal(hour.json.captures, 1);
    assert.deepEqual(hour.json.rows, [
      { capture_id: IDS.sync, capture_name: 'sync-users', status: 200 },
      { capture_id: IDS.sync, capture_name: 'sync-users', status: 204 },
    ]);
    const day = await mcp.call('probe-rows', { since: '1d', where: [{ field: 'failed', op: '=', value: 'true' }], fields: ['row', 'url'] });
    assert.deepEqual(day.json.rows, [
      { capture_id: IDS.order, capture_name: 'GET /orders/42', row: 1, url: 'https://payments.example.test/charge' },
      { capture_id: IDS.order, capture_name: 'GET /orders/42', row: 2, url: 'http://inventory.example.test:8080/stock' },
    ]);
  });

  test('id "*" with type, name (glob), sort and limit', async () => {
    const slowest = await mcp.call('probe-rows', { id: '*', sort: 'duration', dir: 'desc', limit: 3, fields: ['duration'] });
    assert.deepEqual(
      slowest.json.rows.map((row: { duration: number }) => row.duration),
      [800, 120, 55],
    );
    assert.equal(slowest.json.matched, 5);
    const jobs = await mcp.call('probe-rows', { id: '*', type: 'job', fields: ['row'] });
    assert.deepEqual(
      jobs.json.rows.map((row: { capture_id: string }) => row.capture_id),
      [IDS.sync, IDS.sync],
    );
    const named = await mcp.call('probe-rows', { id: '*', name: 'GET /orders/*', limit: '1', fields: 'status' });
    assert.deepEqual(named.json.rows, [{ capture_id: IDS.order, capture_name: 'GET /orders/42', status: 200 }]);
  });

  test('section defaults to http; fields are exact; without fields whole rows carry row', async () => {
    const newest = await mcp.call('probe-rows', {});
    assert.equal(newest.isError, undefined, newest.text);
    assert.equal(newest.json.section, 'http');
    assert.equal(newest.json.id, IDS.sync);
    assert.equal(newest.json.rows[0].row, 0);
    assert.equal(newest.json.rows[0].capture_id, undefined);
    const exact = await mcp.call('probe-rows', { id: IDS.order, fields: ['url', 'timing.wait'] });
    for (const row of exact.json.rows) assert.deepEqual(Object.keys(row), ['url', 'timing.wait']);
  });

  test('probe-show section + row: that row whole, long bodies clipped with the marker', async () => {
    const shown = await mcp.call('probe-show', { id: IDS.sync, section: 'http', row: 0 });
    assert.equal(shown.isError, undefined, shown.text);
    assert.equal(shown.json.row, 0);
    assert.equal(shown.json.total, 2);
    assert.equal(shown.json.capture.name, 'sync-users');
    assert.equal(shown.json.data.url, 'https://users.example.test/users?page=1');
    assert.deepEqual(shown.json.data.request_headers, { accept: 'application/json' });
    assert.match(shown.json.data.response_body, /^y{8000}… \[clipped: 1000 more chars\]$/);
    // The row number probe-rows gives is the one probe-show takes.
    const failed = await mcp.call('probe-rows', { id: IDS.order, where: [{ field: 'status', op: '=', value: '502' }], fields: ['row'] });
    const again = await mcp.call('probe-show', { id: IDS.order, row: failed.json.rows[0].row });
    assert.equal(again.json.data.status, 502);
  });

  test('bad inputs: tool errors saying what was wrong and listing the valid values', async () => {
    const error = async (name: string, args: Record<string, unknown>, pattern: RegExp) => {
      const result = await mcp.call(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should fail`);
      assert.match(result.text, pattern);
    };
    await error('probe-rows', { since: 'lately' }, /since "lately" is not a duration.*Valid values: 30s, 15m, 2h, 1d/);
    await error('probe-rows', { id: '*', type: 'cron' }, /type must be one of request, job, command/);
    await error('probe-rows', { id: IDS.order, since: '1h' }, /names one capture/);
    await error('probe-rows', { id: '*', fields: ['nope'] }, /unknown field "nope".*Valid values: .*capture_id, capture_name/);
    await error('probe-show', { id: IDS.order, row: 9 }, /row 9 is not in section http.*rows are numbered 0 to 2/);
    await error('probe-show', { id: IDS.order, row: -1 }, /row must be 0 or more/);
    await error('probe-show', { id: IDS.order, section: 'request' }, /section goes with row/);
  });

  test('tool descriptions: an example input, what comes back, the valid values', async () => {
    const { tools } = await mcp.client.listTools();
    for (const name of ['probe-rows', 'probe-show', 'probe-list']) {
      const description = tools.find((tool) => tool.name === name)!.description ?? '';
      assert.match(description, /Example input: \{/);
      assert.match(description, /Returns JSON/);
      assert.match(description, /Valid values:/);
    }
    const rows = tools.find((tool) => tool.name === 'probe-rows')!.description ?? '';
    assert.match(rows, /"since": "1h"/);
    assert.match(rows, /capture_id and capture_name/);
  });
});
