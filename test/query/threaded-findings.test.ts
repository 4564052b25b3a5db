import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StoreFindings } from '../../src/query/findings';
import { ThreadedFindings } from '../../src/query/ThreadedFindings';
import { MemoryStore } from '../helpers/memory-store';
import { allFixtureCaptures, BIG_ID } from '../dashboard/fixture-captures';

describe('findings made on a worker thread (query/ThreadedFindings.ts)', () => {
  it('are the findings made in place, for every capture, asked again or not', async () => {
    const store = new MemoryStore(allFixtureCaptures());
    const threaded = new ThreadedFindings(store);
    try {
      const here = new StoreFindings(store);
      let found = 0;
      for (const row of await store.index()) {
        const capture = (await store.find(row.id))!;
        const expected = await here.of(capture);
        found += expected.length;
        const [first, again] = await Promise.all([threaded.of(capture), threaded.of(capture)]);
        assert.deepEqual(first, expected, row.id);
        assert.deepEqual(again, expected, row.id);
      }
      assert.ok(found > 0, 'the fixture captures have findings');
    } finally {
      await threaded.close();
    }
  });

  it('leave the event loop free while they are made: a task queued after the ask runs before the answer', async () => {
    // The store answers within microtasks, so made in place the findings would come before any task.
    const store = new MemoryStore(allFixtureCaptures());
    const capture = (await store.find(BIG_ID))!;
    const orderOf = async (findings: StoreFindings): Promise<string[]> => {
      const order: string[] = [];
      const task = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push('task'))));
      await Promise.all([findings.of(capture).then(() => order.push('findings')), task]);
      return order;
    };
    assert.deepEqual(await orderOf(new StoreFindings(store)), ['findings', 'task']);
    const threaded = new ThreadedFindings(store);
    try {
      assert.deepEqual(await orderOf(threaded), ['task', 'findings']);
    } finally {
      await threaded.close();
    }
    // Closed, it makes them in place.
    assert.deepEqual(await threaded.of(capture), await new StoreFindings(store).of(capture));
  });
});
