import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryRows } from '../../src/query/rows';
import { queryShow } from '../../src/query/show';
import { QueryError } from '../../src/query/QueryError';
import type { Capture, HttpRow } from '../../src/capture/types';
import { MemoryStore } from '../helpers/memory-store';
import { IDS, LONG_BODY, fixtureCaptures } from '../fixtures/captures/fixtures';

// Fixtures: the request (3 h ago, 3 calls), the job (40 min ago, 2 calls), the command (10 s ago, none).
const NOW = 1_800_000_000;
const store = () => new MemoryStore(fixtureCaptures(NOW));

test('since: the rows of every capture started within it, newest capture first, each naming its capture', async () => {
  const hour = await queryRows(store(), { since: '1h', fields: ['url'] }, NOW);
  assert.equal(hour.id, '*');
  assert.equal(hour.capture, null);
  assert.equal(hour.captures, 1);
  assert.deepEqual(hour.rows, [
    { capture_id: IDS.sync, capture_name: 'sync-users', url: 'https://users.example.test/users?page=1' },
    { capture_id: IDS.sync, capture_name: 'sync-users', url: 'https://users.example.test/users/7' },
  ]);
  const day = await queryRows(store(), { since: '1d', fields: ['row', 'status'] }, NOW);
  assert.equal(day.captures, 2);
  assert.equal(day.total, 5);
  assert.deepEqual(
    day.rows.map((row) => [row.capture_id, row.row, row.status]),
    [
      [IDS.sync, 0, 200],
      [IDS.sync, 1, 204],
      [IDS.order, 0, 200],
      [IDS.order, 1, 502],
      [IDS.order, 2, null],
    ],
  );
});

test('id "*": every capture; where, sort and limit apply across them; type and name narrow the captures', async () => {
  const failed = await queryRows(store(), { id: '*', where: [{ field: 'failed', op: '=', value: 'true' }], fields: ['url'] }, NOW);
  assert.deepEqual(
    failed.rows.map((row) => row.capture_name),
    ['GET /orders/42', 'GET /orders/42'],
  );
  assert.equal(failed.matched, 2);
  const slowest = await queryRows(store(), { id: '*', sort: 'duration', dir: 'desc', limit: 2, fields: ['duration'] }, NOW);
  assert.deepEqual(slowest.rows, [
    { capture_id: IDS.order, capture_name: 'GET /orders/42', duration: 800 },
    { capture_id: IDS.order, capture_name: 'GET /orders/42', duration: 120 },
  ]);
  assert.match(slowest.note ?? '', /3 more matching rows beyond limit 2/);
  const jobs = await queryRows(store(), { id: '*', type: 'job', fields: ['status'] }, NOW);
  assert.deepEqual(
    jobs.rows.map((row) => row.capture_id),
    [IDS.sync, IDS.sync],
  );
  const named = await queryRows(store(), { since: '1d', name: 'get /orders/*', fields: ['status'] }, NOW);
  assert.deepEqual(
    named.rows.map((row) => row.status),
    [200, 502, null],
  );
  const byCapture = await queryRows(store(), { id: '*', where: [{ field: 'capture_name', op: 'starts_with', value: 'sync' }], fields: ['row'] }, NOW);
  assert.deepEqual(byCapture.rows, [
    { capture_id: IDS.sync, capture_name: 'sync-users', row: 0 },
    { capture_id: IDS.sync, capture_name: 'sync-users', row: 1 },
  ]);
  const none = await queryRows(store(), { since: '5m' }, NOW);
  assert.deepEqual(none.rows, []);
  assert.match(none.note ?? '', /None of the 3 stored captures started within 5m has http rows/);
});

test('without since or "*": one capture as before; type and name choose which; section defaults to http', async () => {
  const newest = await queryRows(store(), {}, NOW);
  assert.equal(newest.section, 'http');
  assert.equal(newest.id, IDS.sync);
  assert.equal(newest.captures, undefined);
  assert.ok(!('capture_id' in newest.rows[0]!));
  const request = await queryRows(store(), { type: 'request', fields: ['status'] }, NOW);
  assert.equal(request.id, IDS.order);
  assert.deepEqual(request.rows, [{ status: 200 }, { status: 502 }, { status: null }]);
  const byName = await queryRows(store(), { name: '*orders*', fields: ['row'] }, NOW);
  assert.equal(byName.id, IDS.order);
});

test('bad across inputs are query errors that say what to give', async () => {
  const error = async (input: Parameters<typeof queryRows>[1], pattern: RegExp) =>
    assert.rejects(queryRows(store(), input, NOW), (e: unknown) => e instanceof QueryError && pattern.test(e.message));
  await error({ since: 'an hour' }, /not a duration.*Valid values: 30s, 15m, 2h, 1d/);
  await error({ id: '*', type: 'cron' }, /Valid values: request, job, command/);
  await error({ id: IDS.order, since: '1h' }, /names one capture.*give id "\*"/);
  await error({ id: '*', section: 'sql' }, /no capture has a section "sql". Valid values: http, request, queries/);
  await error({ id: '*', fields: ['nope'] }, /unknown field "nope".*Valid values: method, .*row, capture_id, capture_name/);
});

test('probe-show section + row: that one row whole, bodies clipped with the marker', async () => {
  const shown = await queryShow(store(), { id: IDS.sync, section: 'http', row: 0 });
  assert.ok('data' in shown);
  assert.equal(shown.row, 0);
  assert.equal(shown.total, 2);
  const data = shown.data as Record<string, unknown>;
  assert.equal(data.url, 'https://users.example.test/users?page=1');
  assert.equal(data.response_body, LONG_BODY); // 5000 characters fit the 8000 a whole row keeps
  const bigger = new MemoryStore(
    fixtureCaptures(NOW).map((c) =>
      c.id === IDS.sync ? ({ ...c, sections: { http: [{ ...(c.sections.http as HttpRow[])[0]!, response_body: 'y'.repeat(9000) }] } } as Capture) : c,
    ),
  );
  const clipped = await queryShow(bigger, { id: IDS.sync, row: 0 });
  assert.match((clipped as { data: { response_body: string } }).data.response_body, /… \[clipped: 1000 more chars\]$/);
  // Default: the newest capture that has the section; section defaults to http.
  const newest = await queryShow(store(), { row: 1 });
  assert.equal(newest.id, IDS.sync);
  await assert.rejects(queryShow(store(), { id: IDS.order, row: 3 }), /row 3 is not in section http of capture fixReq0000000001: rows are numbered 0 to 2/);
  await assert.rejects(queryShow(store(), { id: IDS.order, section: 'http' }), /section goes with row/);
  await assert.rejects(queryShow(store(), { id: IDS.sync, section: 'request', row: 0 }), /has no section "request". Valid values: http/);
});
