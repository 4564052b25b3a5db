import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { CaptureWriter } from '../../src/runtime/CaptureWriter';
import { Unit } from '../../src/runtime/Unit';
import { createLogger } from '../../src/util/logger';
import { MemoryStore } from '../helpers/memory-store';
import type { Capture } from '../../src/capture/types';

const meta = { pid: 1, hostname: 'h', node: process.version, service: 'app' };

test('a burst of ended units is stored over several turns, not in one long one, and flush still stores them all', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const store = new MemoryStore();
  const writer = new CaptureWriter(
    config,
    store,
    createLogger(() => {}),
  );
  for (let i = 0; i < 100; i++) {
    const unit = new Unit('job', `job ${i}`, Date.now(), 'a'.repeat(32), null, null);
    unit.endedAt = Date.now();
    writer.enqueue(unit.toInput(meta));
  }
  await new Promise((resolve) => setImmediate(resolve));
  const afterOneTurn = (await store.index()).length;
  assert.ok(afterOneTurn > 0 && afterOneTurn < 100, `one turn stored ${afterOneTurn} of 100`);
  await writer.flush();
  assert.equal((await store.index()).length, 100);
});

const ended = (name: string) => {
  const unit = new Unit('job', name, Date.now(), 'a'.repeat(32), null, null);
  unit.endedAt = Date.now();
  return unit.toInput(meta);
};

test('a store whose put never settles cannot hold flush(): the put times out, is counted and reported', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const lines: string[] = [];
  const hanging = { put: () => new Promise<void>(() => {}), find: async () => null, index: async () => [], clear: async () => {} };
  const writer = new CaptureWriter(
    config,
    hanging,
    createLogger((line) => lines.push(line)),
    50,
  );
  writer.enqueue(ended('stuck'));
  // The writer's timers do not hold a process open (an app's exit must not wait on them): this test does.
  const awake = setInterval(() => {}, 1000);
  await writer.flush();
  clearInterval(awake);
  assert.equal(writer.dropped, 1);
  assert.match(lines.join('\n'), /could not store a capture: the file store's put did not settle within 50 ms/);
});

test('captures lost while the store was down are reported as a total once a put succeeds again', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const lines: string[] = [];
  const store = new MemoryStore();
  let down = true;
  const flaky = {
    ...store,
    put: (capture: Parameters<MemoryStore['put']>[0]) => (down ? Promise.reject(new Error('ECONNREFUSED')) : store.put(capture)),
    find: store.find.bind(store),
    index: store.index.bind(store),
    clear: store.clear.bind(store),
  };
  const writer = new CaptureWriter(
    config,
    flaky,
    createLogger((line) => lines.push(line)),
  );
  for (let i = 0; i < 3; i++) writer.enqueue(ended(`lost ${i}`));
  await writer.flush();
  assert.equal(writer.dropped, 3);
  assert.equal(lines.filter((line) => line.includes('could not store')).length, 1, 'the failure is said once');
  down = false;
  writer.enqueue(ended('back'));
  await writer.flush();
  assert.deepEqual(
    (await store.index()).map((row) => row.name),
    ['back'],
  );
  assert.match(lines.at(-1)!, /the file store is back; 3 capture\(s\) were lost while it failed \(3 since start\)/);
});

test('shutdown() runs once, stores what was queued and accepts nothing after', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const store = new MemoryStore();
  const writer = new CaptureWriter(
    config,
    store,
    createLogger(() => {}),
  );
  writer.enqueue(ended('before'));
  const first = writer.shutdown();
  assert.equal(writer.shutdown(), first, 'a second call gets the same shutdown');
  await first;
  writer.enqueue(ended('after'));
  await writer.flush();
  assert.deepEqual(
    (await store.index()).map((row) => row.name),
    ['before'],
  );
});

test('an outage is said once when it starts and once when it ends; failing again soon after is the same outage, counted and said at exit', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const lines: string[] = [];
  const store = new MemoryStore();
  let down = false;
  const flaky = {
    put: (capture: Parameters<MemoryStore['put']>[0]) => (down ? Promise.reject(new Error('ECONNREFUSED')) : store.put(capture)),
    find: store.find.bind(store),
    index: store.index.bind(store),
    clear: store.clear.bind(store),
  };
  const writer = new CaptureWriter(
    config,
    flaky,
    createLogger((line) => lines.push(line)),
  );
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) writer.enqueue(ended(`unit ${i}`));
    await writer.flush();
  };
  for (const lost of [2, 5]) {
    down = true;
    await run(lost);
    down = false;
    await run(1);
  }
  down = true;
  await run(4);
  writer.sayLost();
  writer.sayLost();
  // A store that comes back and fails again at once (a nearly full disk) does not say each flap: the later losses
  // wait for a store that stays back, or the exit.
  assert.deepEqual(lines, [
    '[probe] could not store a capture: ECONNREFUSED',
    '[probe] the file store is back; 2 capture(s) were lost while it failed (2 since start)',
    '[probe] 9 capture(s) were lost while the file store failed (it had not answered again at exit) (11 since start)',
  ]);
  assert.equal(writer.dropped, 11);
});

test('captures are counted lost, not writes: a running version and the last version of one unit are one capture', async () => {
  const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
  const lines: string[] = [];
  let refuse = (_id: string) => true;
  const store = new MemoryStore();
  const failing = {
    put: (capture: Capture) => (refuse(capture.id) ? Promise.reject(new Error('EACCES')) : store.put(capture)),
    find: async () => null,
    index: async () => [],
    clear: async () => {},
  };
  const writer = new CaptureWriter(
    config,
    failing,
    createLogger((line) => lines.push(line)),
  );
  const unit = new Unit('command', 'app.js', Date.now(), 'b'.repeat(32), null, null);
  const running = unit.toInput(meta);
  running.status = 'running';
  running.partial = true;
  running.endedAt = Date.now();
  writer.enqueue(running);
  await writer.flush();
  writer.enqueue(ended('other'));
  unit.endedAt = Date.now();
  writer.enqueue(unit.toInput(meta));
  await writer.flush();
  assert.equal(writer.dropped, 2, lines.join('\n'));
  writer.sayLost();
  assert.match(lines.at(-1)!, /^\[probe\] 2 capture\(s\) were lost while the file store failed/);
  assert.equal(lines.filter((line) => line.includes('could not store a capture')).length, 1, lines.join('\n'));

  // A running version lost, and its last version stored: nothing of that capture was lost.
  const second = new Unit('command', 'app.js', Date.now(), 'c'.repeat(32), null, null);
  const early = second.toInput(meta);
  early.status = 'running';
  early.partial = true;
  early.endedAt = Date.now();
  writer.enqueue(early);
  await writer.flush();
  assert.equal(writer.dropped, 3);
  refuse = () => false;
  second.endedAt = Date.now();
  writer.enqueue(second.toInput(meta));
  await writer.flush();
  assert.equal(writer.dropped, 2, lines.join('\n'));
});
