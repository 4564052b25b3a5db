import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryRows } from '../../src/query/rows';
import { QueryError } from '../../src/query/QueryError';
import { MemoryStore } from '../helpers/memory-store';
import { IDS, LONG_BODY, fixtureCaptures } from '../fixtures/captures/fixtures';

const store = () => new MemoryStore(fixtureCaptures());

test('without id: the newest capture that has rows in the section, each row with its index', async () => {
  const result = await queryRows(store(), { section: 'http' });
  // The command capture is newest but has no http rows.
  assert.equal(result.id, IDS.sync);
  assert.equal(result.capture?.type, 'job');
  assert.equal(result.total, 2);
  assert.deepEqual(
    result.rows.map((row) => row.row),
    [0, 1],
  );
});

test('every operator, with values given as strings coerced to the field type', async () => {
  const s = store();
  const q = async (field: string, op: string, value: string) =>
    (await queryRows(s, { id: IDS.order, section: 'http', where: [{ field, op: op as never, value }], fields: ['row', 'url'] })).rows.map((row) => row.row);
  assert.deepEqual(await q('status', '=', '502'), [1]);
  assert.deepEqual(await q('status', '!=', '200'), [1, 2]);
  assert.deepEqual(await q('status', '>', '200'), [1]);
  assert.deepEqual(await q('status', '>=', '200'), [0, 1]);
  assert.deepEqual(await q('duration', '<', '120'), [2]);
  assert.deepEqual(await q('duration', '<=', '120'), [0, 2]);
  assert.deepEqual(await q('url', 'contains', 'PAYMENTS'), [1]);
  assert.deepEqual(await q('host', 'starts_with', 'inventory'), [2]);
  assert.deepEqual(await q('failed', '=', 'true'), [1, 2]);
  assert.deepEqual(await q('failed', '=', 'false'), [0]);
  assert.deepEqual(await q('status', '=', 'null'), [2]);
  assert.deepEqual(await q('exception', '!=', 'null'), [2]);
  assert.deepEqual(await q('exception.code', '=', 'null'), [0, 1, 2]);
  assert.deepEqual(await q('exception.previous', 'contains', 'ECONNREFUSED'), [2]);
  assert.deepEqual(await q('timing.wait', '>', '100'), [1]);
  assert.deepEqual(await q('request_headers.authorization', '=', '********'), [1]);
});

test('several where clauses all apply', async () => {
  const result = await queryRows(store(), {
    id: IDS.order,
    section: 'http',
    where: [
      { field: 'failed', op: '=', value: 'true' },
      { field: 'status', op: '!=', value: 'null' },
    ],
  });
  assert.deepEqual(
    result.rows.map((row) => row.row),
    [1],
  );
  assert.equal(result.matched, 1);
});

test('sort by a dotted field both ways; missing values last; limit cuts', async () => {
  const s = store();
  const desc = await queryRows(s, { id: IDS.order, section: 'http', sort: 'timing.wait', dir: 'desc', fields: ['row', 'timing.wait'] });
  assert.deepEqual(desc.rows, [
    { row: 1, 'timing.wait': 780 },
    { row: 0, 'timing.wait': 90 },
    { row: 2, 'timing.wait': null },
  ]);
  const asc = await queryRows(s, { id: IDS.order, section: 'http', sort: 'duration', dir: 'asc', limit: 2, fields: ['row', 'duration'] });
  assert.deepEqual(asc.rows, [
    { row: 2, duration: 4 },
    { row: 0, duration: 120 },
  ]);
  assert.equal(asc.matched, 3);
  assert.equal(asc.returned, 2);
  assert.match(asc.note ?? '', /1 more matching rows beyond limit 2/);
});

test('fields keeps exactly the listed dotted keys: no row index unless listed', async () => {
  const result = await queryRows(store(), {
    id: IDS.order,
    section: 'http',
    fields: ['exception.message', 'exception.previous', 'status'],
    where: [{ field: 'exception', op: '!=', value: 'null' }],
  });
  assert.deepEqual(result.rows, [
    {
      'exception.message': 'fetch failed',
      'exception.previous': [{ class: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:8080', code: 'ECONNREFUSED' }],
      status: null,
    },
  ]);
});

test('long bodies are clipped with a marker saying how much was left out', async () => {
  const result = await queryRows(store(), { id: IDS.sync, section: 'http' });
  const body = result.rows[0]!.response_body as string;
  assert.ok(body.length < LONG_BODY.length);
  assert.match(body, /… \[clipped: 4000 more chars\]$/);
  assert.match(result.note ?? '', /clipped/);
});

test('an object section is one row; custom sections work with their own fields', async () => {
  const request = await queryRows(store(), { section: 'request', fields: ['route', 'status'] });
  assert.deepEqual(request.rows, [{ route: '/orders/:id', status: '500' }]);
  const queries = await queryRows(store(), { section: 'queries', where: [{ field: 'ms', op: '>=', value: '2' }] });
  assert.equal(queries.id, IDS.seed);
  assert.deepEqual(queries.rows, [{ row: 0, sql: 'select 1', ms: 2 }]);
});

test('bad inputs are query errors listing the valid values', async () => {
  const s = store();
  const error = async (input: Parameters<typeof queryRows>[1], pattern: RegExp) => {
    await assert.rejects(queryRows(s, input), (e: unknown) => e instanceof QueryError && pattern.test(e.message));
  };
  await error({ section: 'htp' }, /no capture has a section "htp". Valid values: .*http.*request.*queries/);
  await error({ id: IDS.sync, section: 'request' }, /capture fixJob0000000002 has no section "request". Valid values: http$/);
  await error(
    { section: 'http', where: [{ field: 'statuss', op: '=', value: '1' }] },
    /unknown field "statuss".*Valid values: method, url, .*exception\.message/,
  );
  await error({ section: 'http', sort: 'nope' }, /unknown field "nope" in sort/);
  await error({ section: 'http', fields: ['nope.x'] }, /unknown field "nope.x" in fields/);
  await error(
    { section: 'http', where: [{ field: 'status', op: '~' as never, value: '1' }] },
    /unknown operator "~". Valid values: =, !=, >, >=, <, <=, contains, starts_with/,
  );
  await error({ section: 'http', where: [{ field: 'status', op: '>', value: 'abc' }] }, /"abc" for field status is not a number/);
  await error({ section: 'http', where: [{ field: 'failed', op: '=', value: 'yes' }] }, /not a boolean. Valid values: true, false, null/);
  await error({ section: 'http', where: [{ field: 'status', op: '>', value: 'null' }] }, /needs a value/);
  await error({ section: 'http', limit: 501 }, /limit must be a whole number from 1 to 500/);
  await error({ section: 'http', dir: 'up' as never }, /Valid values: asc, desc/);
  await error({ section: 'http', id: '../../etc' }, /is not a capture id.*Valid values: fixCmd0000000003, fixJob0000000002, fixReq0000000001/);
  await error({ section: 'http', id: 'unknown-id-123' }, /no capture with id "unknown-id-123".*Valid values: fixCmd/);
});

test('an empty store is an answer, not an error', async () => {
  const result = await queryRows(new MemoryStore(), { section: 'http' });
  assert.deepEqual(result.rows, []);
  assert.equal(result.id, null);
  assert.match(result.note ?? '', /no captures yet/);
});
