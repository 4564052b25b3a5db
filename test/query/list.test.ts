import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryList } from '../../src/query/list';
import { QueryError } from '../../src/query/QueryError';
import { parseSince } from '../../src/query/since';
import { MemoryStore } from '../helpers/memory-store';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';

const NOW = 2_000_000_000;
const store = () => new MemoryStore(fixtureCaptures(NOW));
const ids = (result: { captures: Array<{ id: string }> }) => result.captures.map((row) => row.id);

test('index rows newest first, with every filter', async () => {
  const s = store();
  assert.deepEqual(ids(await queryList(s, {}, NOW)), [IDS.seed, IDS.sync, IDS.order]);
  assert.deepEqual(ids(await queryList(s, { has_errors: true }, NOW)), [IDS.order]);
  assert.deepEqual(ids(await queryList(s, { has_errors: false }, NOW)), [IDS.seed, IDS.sync]);
  assert.deepEqual(ids(await queryList(s, { type: 'job' }, NOW)), [IDS.sync]);
  assert.deepEqual(ids(await queryList(s, { has: ['http'] }, NOW)), [IDS.sync, IDS.order]);
  assert.deepEqual(ids(await queryList(s, { has: ['http', 'request'] }, NOW)), [IDS.order]);
  assert.deepEqual(ids(await queryList(s, { since: '30s' }, NOW)), [IDS.seed]);
  assert.deepEqual(ids(await queryList(s, { since: '1h' }, NOW)), [IDS.seed, IDS.sync]);
  assert.deepEqual(ids(await queryList(s, { since: '1d' }, NOW)), [IDS.seed, IDS.sync, IDS.order]);
  const limited = await queryList(s, { limit: 1 }, NOW);
  assert.deepEqual(ids(limited), [IDS.seed]);
  assert.equal(limited.matched, 3);
  assert.equal(limited.total, 3);
  assert.equal(limited.captures[0]!.counts.queries, 1);
});

test('since durations', () => {
  assert.equal(parseSince('30s'), 30);
  assert.equal(parseSince('15m'), 900);
  assert.equal(parseSince('2h'), 7200);
  assert.equal(parseSince('1d'), 86_400);
  assert.throws(() => parseSince('yesterday'), /Valid values: 30s, 15m, 2h, 1d/);
});

test('bad inputs list the valid values', async () => {
  const s = store();
  await assert.rejects(queryList(s, { type: 'cron' }, NOW), (e: unknown) => e instanceof QueryError && /Valid values: request, job, command/.test(e.message));
  await assert.rejects(queryList(s, { has: ['sql'] }, NOW), /no capture has a section "sql". Valid values: http, request, queries/);
  await assert.rejects(queryList(s, { since: '5 minutes' }, NOW), /not a duration/);
  await assert.rejects(queryList(s, { limit: 0 }, NOW), /limit must be/);
});

test('an empty store is an answer', async () => {
  const result = await queryList(new MemoryStore(), { has: ['anything'] });
  assert.deepEqual(result.captures, []);
  assert.match(result.note ?? '', /no captures yet/);
});

test('route: filter by template and count captures per route', async () => {
  const s = store();
  assert.deepEqual(ids(await queryList(s, { route: '/orders/:id' }, NOW)), [IDS.order]);
  assert.deepEqual(ids(await queryList(s, { route: '/users/:id' }, NOW)), []);
  const grouped = await queryList(s, { group_by: 'route', limit: 1 }, NOW);
  assert.deepEqual(ids(grouped), [IDS.seed]);
  // Every matching capture is counted, not only the ones returned.
  assert.deepEqual(
    grouped.groups?.map((group) => [group.route, group.captures, group.with_errors, group.latest_id]),
    [
      [null, 2, 0, IDS.seed],
      ['/orders/:id', 1, 1, IDS.order],
    ],
  );
  assert.equal((await queryList(s, {}, NOW)).groups, undefined);
  await assert.rejects(queryList(s, { group_by: 'host' }, NOW), /group_by "host" is not a grouping. Valid values: route/);
});
