import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { CaptureWriter } from '../../src/runtime/CaptureWriter';
import { Unit } from '../../src/runtime/Unit';
import { createLogger } from '../../src/util/logger';
import { MemoryStore } from '../helpers/memory-store';

const meta = { pid: 1, hostname: 'h', node: process.version, service: 'app' };

test('a burst of ended units is stored over several turns, not in one long one, and flush still stores them all', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const store = new MemoryStore();
  const writer = new CaptureWriter(config, store, createLogger(() => {}));
  for (let i = 0; i < 100; i++) {
    const unit = new Unit('job', `job ${i}`, Date.now(), 'a'.repeat(32), null, null);
    unit.endedAt = Date.now();
    writer.enqueue(unit.toInput('/app', meta, false));
  }
  await new Promise((resolve) => setImmediate(resolve));
  const afterOneTurn = (await store.index()).length;
  assert.ok(afterOneTurn > 0 && afterOneTurn < 100, `one turn stored ${afterOneTurn} of 100`);
  await writer.flush();
  assert.equal((await store.index()).length, 100);
});
