import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';

describe('probe list / show / rows over a file store', () => {
  const app = new TestApp();
  before(async () => {
    await seedFileStore(app, fixtureCaptures());
  });

  test('probe list: a readable table by default, JSON with --json, the tool filters as flags', async () => {
    const table = await app.cli(['list']);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0]!, /^ID\s+TYPE\s+STATUS\s+DURATION\s+HTTP\s+ERRORS\s+STARTED \(UTC\)\s+NAME$/);
    assert.match(lines[1]!, new RegExp(`^${IDS.seed}\\s+command\\s+exit 0\\s+1000ms\\s+0\\s+.*scripts/seed.js --all$`));
    assert.match(lines[3]!, new RegExp(`^${IDS.order}\\s+request\\s+500\\s+1000ms\\s+3\\s+2\\s+.*GET /orders/42$`));
    assert.match(table.stdout, /3 of 3 matching captures \(3 stored\)/);

    const json = JSON.parse((await app.cli(['list', '--json', '--errors'])).stdout);
    assert.deepEqual(
      json.captures.map((row: { id: string }) => row.id),
      [IDS.order],
    );
    const ok = JSON.parse((await app.cli(['list', '--json', '--no-errors', '--type', 'job', '--since', '2h', '--has', 'http', '--limit', '5'])).stdout);
    assert.deepEqual(
      ok.captures.map((row: { id: string }) => row.id),
      [IDS.sync],
    );
  });

  test('probe list --route and --group-by route', async () => {
    const one = JSON.parse((await app.cli(['list', '--json', '--route', '/orders/:id'])).stdout);
    assert.deepEqual(
      one.captures.map((row: { id: string }) => row.id),
      [IDS.order],
    );
    const grouped = await app.cli(['list', '--group-by', 'route', '--type', 'request']);
    assert.equal(grouped.code, 0, grouped.stderr);
    const lines = grouped.stdout.split('\n');
    assert.match(lines[0]!, /^ROUTE\s+CAPTURES\s+ERRORS\s+AVG\s+MAX\s+LATEST$/);
    assert.match(lines[1]!, new RegExp(`^/orders/:id\\s+1\\s+1\\s+1000ms\\s+1000ms\\s+${IDS.order}$`));
    const bad = await app.cli(['list', '--group-by', 'host']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /group_by "host" is not a grouping. Valid values: route/);
  });

  test('probe show: newest by default, an id as argument, --sections and --limit', async () => {
    const newest = await app.cli(['show']);
    assert.equal(newest.code, 0, newest.stderr);
    assert.match(newest.stdout, new RegExp(`^${IDS.seed}  command  scripts/seed.js --all  exit 0`));
    const order = await app.cli(['show', IDS.order]);
    assert.match(order.stdout, /http: 3 calls, 2 failed, 924ms total/);
    assert.match(order.stdout, /HTTP call failed: POST https:\/\/payments\.example\.test\/charge \(502\)/);
    assert.match(order.stdout, /route: \/orders\/:id/);
    assert.match(order.stdout, /2\s+GET\s+-\s+4ms\s+http:\/\/inventory\.example\.test:8080\/stock\s+fetch failed/);
    const json = JSON.parse((await app.cli(['show', IDS.order, '--json', '--sections', 'http', '--limit', '1'])).stdout);
    assert.deepEqual(Object.keys(json.sections), ['http']);
    assert.equal(json.sections.http.rows.length, 1);
  });

  test('probe rows: where/sort/dir/limit/fields as flags', async () => {
    const table = await app.cli(['rows', 'http', '--id', IDS.order, '--where', 'failed=true', '--where', 'status != null', '--fields', 'url,status']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /ROW\s+URL\s+STATUS\n1\s+https:\/\/payments\.example\.test\/charge\s+502\n/);
    const json = JSON.parse(
      (
        await app.cli([
          'rows',
          '--section',
          'http',
          '--id',
          IDS.order,
          '--where',
          'url contains example',
          '--sort',
          'timing.wait',
          '--dir',
          'desc',
          '--limit',
          '2',
          '--fields',
          'row,timing.wait',
          '--json',
        ])
      ).stdout,
    );
    assert.deepEqual(json.rows, [
      { row: 1, 'timing.wait': 780 },
      { row: 0, 'timing.wait': 90 },
    ]);
  });

  test('bad inputs: exit 2 and one message listing the valid values', async () => {
    const field = await app.cli(['rows', 'http', '--where', 'nope>1']);
    assert.equal(field.code, 2);
    assert.match(field.stderr, /^probe rows: unknown field "nope".*Valid values: method, url/);
    const op = await app.cli(['rows', 'http', '--where', 'status ~ 1']);
    assert.equal(op.code, 2);
    assert.match(op.stderr, /operators. Valid values: =, !=, >, >=, <, <=, contains, starts_with/);
    const type = await app.cli(['list', '--type', 'cron']);
    assert.equal(type.code, 2);
    assert.match(type.stderr, /Valid values: request, job, command/);
    const id = await app.cli(['show', 'missing-capture']);
    assert.equal(id.code, 2);
    assert.match(id.stderr, /no capture with id "missing-capture"/);
    const flag = await app.cli(['list', '--bogus']);
    assert.equal(flag.code, 2);
  });
});

test('an empty store: every command answers with exit 0', async () => {
  const app = new TestApp();
  for (const args of [['list'], ['show'], ['rows', 'http'], ['list', '--json']]) {
    const result = await app.cli(args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, /no captures yet|"total": 0/);
  }
});
