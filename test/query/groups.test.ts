import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryGroups } from '../../src/query/groups';
import { groupRows } from '../../src/query/groupRows';
import { percentile } from '../../src/query/percentile';
import { QueryError } from '../../src/query/QueryError';
import type { RowItem } from '../../src/query/rowSelect';
import type { Capture, HttpRow } from '../../src/capture/types';
import { MemoryStore } from '../helpers/memory-store';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';

// Fixtures: the request (3 h ago, 3 calls: 200 in 120 ms, 502 in 800 ms, refused), the job (40 min ago, 2 calls).
const NOW = 1_800_000_000;
const store = () => new MemoryStore(fixtureCaptures(NOW));

test('percentile: nearest rank, a measured value, null for none', () => {
  assert.equal(percentile([], 0.5), null);
  assert.equal(percentile([7], 0.95), 7);
  assert.equal(percentile([1, 2, 3], 0.5), 2);
  assert.equal(percentile([1, 2, 3], 0.95), 3);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(hundred, 0.5), 50);
  assert.equal(percentile(hundred, 0.95), 95);
});

test('groupRows: count, failed, p50/p95/max, bytes, first/last as epoch seconds, a failed example first', () => {
  const [order] = fixtureCaptures(NOW);
  const rows = order!.sections.http as HttpRow[];
  const items: RowItem[] = [...rows, { ...rows[0]!, duration: 30, time: 500 }].map((row, index) => ({ row, index, capture: order! as Capture }));
  const byHost = groupRows(items, (item) => (item.row as HttpRow).host);
  assert.deepEqual(byHost[0], {
    key: 'api.example.test',
    count: 2,
    failed: 0,
    p50: 30,
    p95: 120,
    max: 120,
    bytes: 64 + 64,
    first: NOW - 3 * 3600 + 0.002,
    last: NOW - 3 * 3600 + 0.5,
    example: { capture_id: IDS.order, row: 0 },
  });
  const failed = groupRows(items, (item) => (item.row as HttpRow).failed);
  assert.deepEqual(
    failed.map((group) => [group.key, group.count, group.failed, group.example.row]),
    [
      [false, 2, 0, 0],
      [true, 2, 2, 1],
    ],
  );
  const slowest = groupRows(items, (item) => (item.row as HttpRow).host, 'max', 'desc');
  assert.deepEqual(
    slowest.map((group) => group.key),
    ['payments.example.test', 'api.example.test', 'inventory.example.test:8080'],
  );
  assert.throws(() => groupRows(items, () => 1, 'nope' as never), QueryError);
});

test('queryGroups: across captures with since / id "*", where before grouping, sort and dir', async () => {
  const day = await queryGroups(store(), { since: '1d', group_by: 'host' }, NOW);
  assert.equal(day.id, '*');
  assert.equal(day.captures, 2);
  assert.equal(day.total, 5);
  assert.equal(day.group_count, 4);
  assert.deepEqual(day.groups[0], {
    key: 'users.example.test',
    count: 2,
    failed: 0,
    p50: 3,
    p95: 55,
    max: 55,
    bytes: 5000 + 0,
    first: NOW - 2400 + 0.001,
    last: NOW - 2400 + 0.002,
    example: { capture_id: IDS.sync, row: 0 },
  });
  const p95 = await queryGroups(store(), { id: '*', group_by: 'endpoint', sort: 'p95', limit: 2 }, NOW);
  assert.deepEqual(
    p95.groups.map((group) => [group.key, group.p95]),
    [
      ['POST https://payments.example.test/charge', 800],
      ['GET https://api.example.test/orders/{id}', 120],
    ],
  );
  assert.match(p95.note ?? '', /3 more groups beyond limit 2/);
  const failed = await queryGroups(store(), { id: '*', group_by: 'capture_name', where: [{ field: 'failed', op: '=', value: 'true' }] }, NOW);
  assert.equal(failed.matched, 2);
  assert.deepEqual(
    failed.groups.map((group) => [group.key, group.count, group.failed]),
    [['GET /orders/42', 2, 2]],
  );
  const routes = await queryGroups(store(), { id: '*', group_by: 'route', sort: 'key', dir: 'asc' }, NOW);
  assert.deepEqual(
    routes.groups.map((group) => [group.key, group.count]),
    [
      ['/orders/:id', 3],
      [null, 2],
    ],
  );
  const statuses = await queryGroups(store(), { id: IDS.order, group_by: 'status' }, NOW);
  assert.equal(statuses.capture?.id, IDS.order);
  assert.deepEqual(
    statuses.groups.map((group) => group.key),
    [200, 502, null],
  );
  const dotted = await queryGroups(store(), { id: '*', group_by: 'timing.protocol' }, NOW);
  assert.deepEqual(
    dotted.groups.map((group) => [group.key, group.count]),
    [
      ['HTTP/1.1', 2],
      [null, 2],
      ['HTTP/2', 1],
    ],
  );
});

test('queryGroups: bad inputs are query errors that list valid values', async () => {
  await assert.rejects(queryGroups(store(), { id: '*', group_by: 'nope' }, NOW), /unknown field "nope" in group_by.*Valid values: .*endpoint/);
  await assert.rejects(
    queryGroups(store(), { id: '*', group_by: 'host', sort: 'duration' }, NOW),
    /sort "duration" is not a group field.*Valid values: count, failed, p50, p95/,
  );
  await assert.rejects(queryGroups(store(), { id: '*', group_by: 'host', fields: ['url'] }, NOW), /fields does not apply with group_by/);
  const empty = await queryGroups(new MemoryStore(), { group_by: 'host' }, NOW);
  assert.deepEqual(empty.groups, []);
  assert.match(empty.note ?? '', /no captures yet/);
});

test('token budget: an hour of a busy dev server (3600 captures, 9 calls each, 14 endpoints) fits in a few hundred tokens', async () => {
  const [order] = fixtureCaptures(NOW);
  const template = (order!.sections.http as HttpRow[])[0]!;
  const captures: Capture[] = [];
  for (let i = 0; i < 3600; i++) {
    const rows: HttpRow[] = [];
    for (let j = 0; j < 9; j++) {
      const endpoint = (i + j) % 14;
      rows.push({
        ...template,
        endpoint: `GET https://api${endpoint}.example.test/v1/items/{id}`,
        duration: 5 + ((i * 7 + j * 13) % 300),
        failed: j === 8 && i % 50 === 0,
        time: j * 10,
      });
    }
    captures.push({ ...order!, id: `busy${String(i).padStart(12, '0')}`, started_at: NOW - 3600 + i, sections: { http: rows } });
  }
  const answer = await queryGroups(new MemoryStore(captures), { since: '1h', group_by: 'endpoint', sort: 'p95' }, NOW);
  assert.equal(answer.matched, 3600 * 9);
  assert.equal(answer.group_count, 14);
  assert.equal(answer.returned, 10);
  const text = JSON.stringify(answer);
  // About 4 characters a token: under 2,400 characters is under ~600 tokens.
  assert.ok(text.length < 2400, `${text.length} characters`);
});
