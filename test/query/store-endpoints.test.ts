import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCapture } from '../../src/builder/buildCapture';
import { resolveConfig } from '../../src/config/resolve';
import type { Capture } from '../../src/capture/types';
import { STATS_CALLS, STATS_CAPTURES, StoreEndpoints } from '../../src/query/storeEndpoints';
import { MemoryStore } from '../helpers/memory-store';
import { callInput, unitOf, T0 } from '../helpers/call-input';

const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });

/** A request that loads one part by its string id from one code line, built by the builder. */
function oneCall(n: number, id: string): Capture {
  const start = T0 + n * 1000;
  const body = Buffer.from(JSON.stringify({ id, stock: 4 }));
  const call = callInput({
    spanId: `s${n}`,
    url: `https://api.test/parts/${id}`,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: { chunks: [body], size: body.length, truncated: false },
    start,
    end: start + 10,
    origin: { file: 'shop.js', line: 9, chain: ['shop.js:9 part', 'shop.js:20 route'] },
  });
  return buildCapture({ ...unitOf([call]), id: `part${String(n).padStart(6, '0')}`, type: 'job', name: 'part', endedAt: start + 20 }, config);
}

/** A MemoryStore that counts the captures it is asked for. */
class CountingStore extends MemoryStore {
  finds = 0;
  override find(id: string): Promise<Capture | null> {
    this.finds++;
    return super.find(id);
  }
}

describe("the store's endpoints (query/storeEndpoints.ts)", () => {
  it('learn a call site that makes one call per capture, each capture read once', async () => {
    const captures = ['SKU-1', 'SKU-2', 'SKU-3'].map((id, n) => oneCall(n, id));
    // Each capture alone has no template: its one call keeps its id.
    captures.forEach((capture, n) =>
      assert.deepEqual(
        capture.sections.http!.map((row) => row.endpoint),
        [`GET https://api.test/parts/SKU-${n + 1}`],
      ),
    );
    const store = new CountingStore(captures);
    const endpoints = new StoreEndpoints(store);
    const view = await endpoints.view();
    assert.deepEqual([...view.templates.templates], ['GET https://api.test/parts/{id}']);
    assert.equal(view.stats.get('GET https://api.test/parts/{id}')?.count, 3);
    assert.equal(store.finds, 3);
    await endpoints.view();
    assert.equal(store.finds, 3, 'kept while in the index');
    await store.put(oneCall(3, 'SKU-4'));
    assert.equal((await endpoints.view()).stats.get('GET https://api.test/parts/{id}')?.count, 4);
    assert.equal(store.finds, 4, 'only the new capture is read');
  });

  it(`read at most ${STATS_CAPTURES} captures and ${STATS_CALLS} calls, the newest first`, async () => {
    const many = Array.from({ length: STATS_CAPTURES + 5 }, (_, n) => oneCall(n, `p-${n}`));
    const store = new CountingStore(many);
    assert.equal((await new StoreEndpoints(store).view()).ids.size, STATS_CAPTURES);
    assert.equal(store.finds, STATS_CAPTURES);

    // Two captures of 15,000 calls each: the newest is read, the older one would pass the bound.
    const big = (n: number) => {
      const capture = oneCall(n, `big-${n}`);
      capture.sections.http = Array.from({ length: 15_000 }, () => capture.sections.http![0]!);
      return capture;
    };
    const bigStore = new CountingStore([big(1), big(2)]);
    const view = await new StoreEndpoints(bigStore).view();
    assert.deepEqual([...view.ids], ['part000002']);
    assert.equal(bigStore.finds, 1);
  });
});
