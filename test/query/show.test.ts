import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryShow, type ShownRows } from '../../src/query/show';
import { MemoryStore } from '../helpers/memory-store';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';

const store = () => new MemoryStore(fixtureCaptures());

test('default: the newest capture with every section', async () => {
  const result = await queryShow(store());
  assert.equal(result.id, IDS.seed);
  assert.equal(result.name, 'scripts/seed.js --all');
  assert.deepEqual(result.counts, { http: 0, queries: 1 });
  assert.deepEqual(Object.keys(result.sections ?? {}), ['http', 'queries']);
});

test('header, summary and the first rows of the listed sections', async () => {
  const result = await queryShow(store(), { id: IDS.order, sections: ['http'], limit: 2 });
  assert.equal(result.type, 'request');
  assert.equal(result.status, '500');
  assert.equal(result.summary?.totals?.http_failed, 2);
  assert.equal(result.summary?.errors.length, 2);
  assert.deepEqual(result.counts, { request: 1, http: 3 });
  assert.deepEqual(Object.keys(result.sections ?? {}), ['http']);
  const http = result.sections!.http as ShownRows;
  assert.equal(http.total, 3);
  assert.equal(http.shown, 2);
  // Cut to two rows, the two failed calls come first (row 0 answered 200).
  assert.deepEqual(
    http.rows.map((row) => [row.row, row.status]),
    [
      [1, 502],
      [2, null],
    ],
  );
  assert.equal(http.failed, 2);
  assert.match(result.note ?? '', /probe-rows with id fixReq0000000001/);
  const request = await queryShow(store(), { id: IDS.order, sections: ['request'] });
  assert.equal((request.sections!.request as { route: string }).route, '/orders/:id');
});

test('bad inputs list the valid values; an empty store is an answer', async () => {
  await assert.rejects(queryShow(store(), { id: IDS.order, sections: ['sql'] }), /has no section "sql". Valid values: request, http/);
  await assert.rejects(queryShow(store(), { id: 'nope-nope-nope' }), /no capture with id/);
  const empty = await queryShow(new MemoryStore());
  assert.equal(empty.id, null);
  assert.match(empty.note ?? '', /no captures yet/);
});
