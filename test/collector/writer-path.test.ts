import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture } from '../../src/capture/types';
import { CollectorServer } from '../../src/collector/CollectorServer';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/util/logger';
import { MemoryStore } from '../helpers/memory-store';
import { TestApp, eventually } from '../helpers/app';
import { exportRequest, span } from './otlpFixtures';

const UNITS = 600;

/** A store a user could register whose puts hang until `open()`: what a stalled network store looks like. */
class GatedStore extends MemoryStore {
  private gate: Promise<void>;
  open!: () => void;
  puts = 0;

  constructor() {
    super();
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
  }

  override async put(capture: Capture): Promise<void> {
    this.puts++;
    await this.gate;
    await super.put(capture);
  }
}

test('the collector writes through the capture writer: while the store hangs its queue stays bounded and every capture lost is counted', async () => {
  const app = new TestApp({}, 'collector-writer');
  const config = loadConfig({ cwd: app.dir, env: {} });
  const lines: string[] = [];
  const store = new GatedStore();
  const server = new CollectorServer({
    store,
    config,
    logger: createLogger((line) => lines.push(line)),
    sweepMs: 20,
    assembler: { settleMs: 50 },
    putTimeoutMs: 120_000,
  });
  // The writer's timers do not hold a process open (an app's exit must not wait on them): this test does.
  const awake = setInterval(() => {}, 1000);
  try {
    const url = `${await server.listen(0, '127.0.0.1')}/v1/traces`;
    const spans = Array.from({ length: UNITS }, (_, i) =>
      span({
        spanId: (i + 1).toString(16).padStart(16, '0'),
        traceId: (i + 1).toString(16).padStart(32, '0'),
        kind: 2,
        start: 0,
        end: 5,
        attributes: { 'http.request.method': 'GET', 'url.path': `/orders/${i}` },
      }),
    );
    const res = await fetch(url, { method: 'POST', body: JSON.stringify(exportRequest(spans)), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200);
    server.sweep(Date.now() + 60_000);
    // Nothing is stored while the store hangs; what the bounded queue and the puts in flight cannot hold is lost.
    await eventually(() => server.heldUnits === 0 && store.puts > 0);
    const { dropped } = server.stats;
    assert.ok(dropped > 0);
    assert.equal((await store.index()).length, 0);
    assert.ok(store.puts <= 64, `${store.puts} puts in flight at once`);
    assert.ok(UNITS - dropped <= 500 + 64, `${UNITS - dropped} captures held by a queue of 500 and 64 puts`);
    assert.match(lines.join('\n'), /capture queue full \(500\)/);

    store.open();
    await server.idle();
    assert.equal(server.stats.captures, UNITS - dropped);
    assert.equal(server.stats.dropped, dropped);
    assert.equal((await store.index()).length, UNITS - dropped);
    assert.match(lines.at(-1) ?? '', new RegExp(`the store caught up; ${dropped} capture\\(s\\) were lost before`));
  } finally {
    store.open();
    await server.close();
    clearInterval(awake);
  }
});
