import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Every file under the folder with its size and mtime: the server must leave it exactly as it was. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const stat = statSync(full);
        out.push(`${path.relative(dir, full)} ${stat.size} ${stat.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

describe('probe mcp over stdio, file store with fixture captures', () => {
  const app = new TestApp();
  let mcp: McpSession;

  before(async () => {
    await seedFileStore(app, fixtureCaptures());
    mcp = await connectMcp(app);
  });
  after(async () => {
    await mcp?.close();
  });

  test('exposes exactly probe-rows, probe-list and probe-show, described for agents with typed inputs', async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['probe-list', 'probe-rows', 'probe-show']);
    assert.deepEqual(mcp.client.getServerVersion(), { name: 'probe', version: PACKAGE_VERSION });
    for (const tool of tools) {
      assert.match(tool.description ?? '', /Example input: \{/);
      assert.match(tool.description ?? '', /Returns JSON/);
      assert.equal(tool.inputSchema.type, 'object');
    }
    const rows = tools.find((tool) => tool.name === 'probe-rows')!;
    // Every input is optional: section defaults to http, as in the CLI.
    assert.equal(rows.inputSchema.required, undefined);
    for (const name of ['section', 'where', 'sort', 'dir', 'limit', 'fields', 'id', 'since', 'type', 'name'])
      assert.ok(name in (rows.inputSchema.properties as object), name);
    const show = tools.find((tool) => tool.name === 'probe-show')!;
    for (const name of ['id', 'sections', 'limit', 'section', 'row']) assert.ok(name in (show.inputSchema.properties as object), name);
    // An agent finds the mock export from the tool it reads a capture with (issue 29).
    assert.match(show.description ?? '', /probe export <id> --msw \| --nock \| --undici-snapshot/);
    // The tool list's budget: within +15 % of its size before diff, findings and max_tokens came (10,784 JSON characters),
    // and the 250 characters of probe-list's `service` and probe-show's `flow` (flows across services).
    assert.ok(JSON.stringify(tools).length <= Math.round(10_784 * 1.15) + 250, `tool list is ${JSON.stringify(tools).length} characters`);
    for (const tool of tools) assert.ok('max_tokens' in (tool.inputSchema.properties as object), `${tool.name} takes max_tokens`);
    assert.ok('compare_to' in (show.inputSchema.properties as object));
    const where = (rows.inputSchema.properties as any).where;
    assert.deepEqual(where.items.properties.op.enum, ['=', '!=', '>', '>=', '<', '<=', 'contains', 'starts_with']);
    assert.deepEqual((rows.inputSchema.properties as any).dir.enum, ['asc', 'desc']);
  });

  test('probe-list: index rows newest first, as structuredContent and the same JSON as text', async () => {
    const result = await mcp.call('probe-list');
    assert.equal(result.isError, undefined);
    assert.deepEqual(JSON.parse(result.text), result.structuredContent);
    assert.deepEqual(
      result.json.captures.map((row: { id: string }) => row.id),
      [IDS.seed, IDS.sync, IDS.order],
    );
    assert.deepEqual(
      (await mcp.call('probe-list', { has_errors: true })).json.captures.map((row: { id: string }) => row.id),
      [IDS.order],
    );
    assert.deepEqual(
      (await mcp.call('probe-list', { type: 'job', since: '1h' })).json.captures.map((row: { id: string }) => row.id),
      [IDS.sync],
    );
    assert.deepEqual(
      (await mcp.call('probe-list', { has: ['http'], limit: 1 })).json.captures.map((row: { id: string }) => row.id),
      [IDS.sync],
    );
    // What agents send besides the documented form: booleans and numbers as strings, a list as "a,b".
    assert.deepEqual(
      (await mcp.call('probe-list', { has_errors: 'true', limit: '5', has: 'http,request' })).json.captures.map((row: { id: string }) => row.id),
      [IDS.order],
    );
    assert.deepEqual(
      (await mcp.call('probe-list', { route: '/orders/:id' })).json.captures.map((row: { id: string }) => row.id),
      [IDS.order],
    );
    const grouped = (await mcp.call('probe-list', { type: 'request', group_by: 'route' })).json;
    assert.deepEqual(
      grouped.groups.map((group: { route: string; captures: number }) => [group.route, group.captures]),
      [['/orders/:id', 1]],
    );
  });

  test('probe-show: header, summary and first rows of the listed sections', async () => {
    const newest = await mcp.call('probe-show');
    assert.equal(newest.json.id, IDS.seed);
    const result = await mcp.call('probe-show', { id: IDS.order, sections: ['http'], limit: 1 });
    assert.equal(result.json.name, 'GET /orders/42');
    assert.equal(result.json.summary.totals.http_failed, 2);
    assert.deepEqual(result.json.counts, { request: 1, http: 3 });
    assert.equal(result.json.sections.http.total, 3);
    // Cut to one row, the first failed call comes first (row 0 answered).
    assert.deepEqual(
      result.json.sections.http.rows.map((row: { row: number; failed: boolean }) => [row.row, row.failed]),
      [[1, true]],
    );
    assert.equal(result.json.sections.http.failed, 2);
  });

  test('probe-rows: every operator, values coerced, dotted fields, sort and limit', async () => {
    const rowsOf = async (field: string, op: string, value: unknown) =>
      (await mcp.call('probe-rows', { id: IDS.order, section: 'http', where: [{ field, op, value }], fields: ['row', 'url'] })).json.rows.map(
        (row: { row: number }) => row.row,
      );
    assert.deepEqual(await rowsOf('status', '=', '502'), [1]);
    assert.deepEqual(await rowsOf('status', '!=', '200'), [1, 2]);
    assert.deepEqual(await rowsOf('status', '>', '200'), [1]);
    assert.deepEqual(await rowsOf('status', '>=', 200), [0, 1]);
    assert.deepEqual(await rowsOf('duration', '<', '120'), [2]);
    assert.deepEqual(await rowsOf('duration', '<=', '120'), [0, 2]);
    assert.deepEqual(await rowsOf('url', 'contains', 'payments'), [1]);
    assert.deepEqual(await rowsOf('host', 'starts_with', 'inventory'), [2]);
    assert.deepEqual(await rowsOf('failed', '=', 'true'), [1, 2]);
    assert.deepEqual(await rowsOf('failed', '=', false), [0]);
    assert.deepEqual(await rowsOf('status', '=', 'null'), [2]);
    assert.deepEqual(await rowsOf('timing.wait', '>=', '90'), [0, 1]);

    const failed = await mcp.call('probe-rows', {
      section: 'http',
      id: IDS.order,
      where: [{ field: 'failed', op: '=', value: 'true' }],
      fields: ['row', 'url', 'status', 'exception.message', 'exception.previous', 'origin.file', 'origin.line'],
    });
    assert.equal(failed.json.id, IDS.order);
    assert.deepEqual(failed.json.rows[1], {
      row: 2,
      url: 'http://inventory.example.test:8080/stock',
      status: null,
      'exception.message': 'fetch failed',
      'exception.previous': [{ class: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:8080', code: 'ECONNREFUSED' }],
      'origin.file': 'src/stock.js',
      'origin.line': 8,
    });
    const slowest = await mcp.call('probe-rows', {
      section: 'http',
      id: IDS.order,
      sort: 'duration',
      dir: 'desc',
      limit: 2,
      fields: ['row', 'endpoint', 'duration'],
    });
    assert.deepEqual(slowest.json.rows, [
      { row: 1, endpoint: 'POST https://payments.example.test/charge', duration: 800 },
      { row: 0, endpoint: 'GET https://api.example.test/orders/{id}', duration: 120 },
    ]);
    // Default id: the newest capture that has http rows (the command capture has none).
    const newest = await mcp.call('probe-rows', { section: 'http' });
    assert.equal(newest.json.id, IDS.sync);
    assert.match(newest.json.rows[0].response_body, /\[clipped: 4000 more chars\]$/);
  });

  test('bad inputs are tool errors that say what was wrong and list the valid values', async () => {
    const error = async (name: string, args: Record<string, unknown>, pattern: RegExp) => {
      const result = await mcp.call(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should fail`);
      assert.match(result.text, pattern);
    };
    await error('probe-rows', { section: 'htp' }, /no capture has a section "htp". Valid values: http, request, queries/);
    await error('probe-rows', { section: '' }, /section must not be empty/);
    await error('probe-rows', { section: 'http', where: [{ field: 'stat', op: '=', value: '1' }] }, /unknown field "stat".*Valid values: method, url, host/);
    await error(
      'probe-rows',
      { section: 'http', where: [{ field: 'status', op: 'like', value: '1' }] },
      /op must be one of = != > >= < <= contains starts_with/,
    );
    await error('probe-rows', { section: 'http', where: [{ field: 'status', op: '>', value: 'many' }] }, /"many" for field status is not a number/);
    await error('probe-rows', { section: 'http', dir: 'down' }, /dir must be "asc" or "desc"/);
    await error('probe-rows', { section: 'http', limit: 501 }, /limit must be at most 500/);
    await error(
      'probe-rows',
      { section: 'http', id: 'no-such-capture' },
      /no capture with id "no-such-capture".*Valid values: fixCmd0000000003, fixJob0000000002, fixReq0000000001/,
    );
    await error('probe-show', { id: IDS.sync, sections: ['request'] }, /has no section "request". Valid values: http/);
    await error('probe-show', { id: '../../../etc/passwd' }, /is not a capture id/);
    await error('probe-list', { type: 'cron' }, /type must be one of request, job, command/);
    await error('probe-list', { group_by: 'host' }, /group_by must be "route"/);
    await error('probe-list', { since: 'yesterday' }, /not a duration.*Valid values: 30s, 15m, 2h, 1d/);
    await error('probe-list', { has: ['sql'] }, /Valid values: http, request, queries/);
    // An input no tool takes is refused, never dropped in silence (a misspelt filter would answer unfiltered).
    await error('probe-rows', { bogus_key: 1 }, /unknown input "bogus_key".*Valid inputs: section, where/);
    await error('probe-list', { limit: 2, bogus_key: 1 }, /unknown input "bogus_key".*Valid inputs: .*limit/);
    await error('probe-show', { bogus_key: 1 }, /unknown input "bogus_key".*Valid inputs: .*id/);
    await error('probe-rows', { section: 'http', where: [{ field: 'status', op: '=', value: '1', extra: 1 }] }, /unknown input "extra"/);
  });

  test('sees captures written after it started, and never writes', async () => {
    const before = snapshot(path.join(app.dir, '.probe'));
    await mcp.call('probe-list');
    await mcp.call('probe-show', { id: IDS.order });
    await mcp.call('probe-rows', { section: 'http' });
    assert.deepEqual(snapshot(path.join(app.dir, '.probe')), before);

    const [late] = fixtureCaptures();
    await seedFileStore(app, [{ ...late!, id: 'fixLate000000004', name: 'GET /late', started_at: Date.now() / 1000 }]);
    const list = await mcp.call('probe-list', { limit: 1 });
    assert.equal(list.json.captures[0].id, 'fixLate000000004');
    const rows = await mcp.call('probe-rows', { section: 'http', fields: ['status'] });
    assert.equal(rows.json.id, 'fixLate000000004');
  });
});

describe('probe mcp with an empty store', () => {
  test('every tool answers, none errs', async () => {
    const app = new TestApp();
    const mcp = await connectMcp(app);
    try {
      const list = await mcp.call('probe-list', { has_errors: true });
      assert.equal(list.isError, undefined);
      assert.deepEqual(list.json.captures, []);
      assert.match(list.json.note, /no captures yet/);
      const show = await mcp.call('probe-show');
      assert.equal(show.isError, undefined);
      assert.equal(show.json.id, null);
      const rows = await mcp.call('probe-rows', { section: 'http', where: [{ field: 'status', op: '>=', value: '500' }] });
      assert.equal(rows.isError, undefined);
      assert.deepEqual(rows.json.rows, []);
    } finally {
      await mcp.close();
    }
  });
});
