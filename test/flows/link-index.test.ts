// The link index the file store keeps beside its captures (the Redis store runs the same rule in a script, covered by
// flow.test.ts): a call and a request that saw one connection are linked both ways, whichever is stored first; a key
// two captures claim links nothing; keys that disagree link nothing; a request outside its call's time links
// nothing; a `traceparent` alone (a service whose connection is not known) links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import type { Capture, ConnectionKey } from '../../src/capture/types';
import { makeCapture } from '../store/contract';
import { criticalRows } from '../../src/flows/flowTree';

function storeOf(t: { after: (fn: () => void) => void }): FileStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-links-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return new FileStore({ path: path.join(dir, 'captures'), limit: 100 });
}

const CLIENT = '127.0.0.1:50001';
const SERVER = '127.0.0.1:3000';

/** A caller whose row 0 went out on `connection` (with `traceparent`), started at `at` (epoch s). */
function caller(at: number, connection: ConnectionKey | null, traceparent?: string): Capture {
  const capture = makeCapture({ startedAt: at });
  const row = capture.sections.http![0]!;
  row.time = 5;
  row.duration = 40;
  if (connection) row.connection = connection;
  if (traceparent) row.request_headers = { traceparent };
  return capture;
}

/** A request capture that came in on `connection` (server side) at `at`. */
function served(at: number, connection: ConnectionKey | null, traceparent?: string): Capture {
  const capture = makeCapture({ startedAt: at });
  capture.sections.http = [];
  if (connection) capture.sections.request!.connection = connection;
  if (traceparent) capture.sections.request!.headers = { traceparent };
  return capture;
}

const out = (order: number): ConnectionKey => ({ local: CLIENT, remote: SERVER, order });
const into = (order: number): ConnectionKey => ({ local: SERVER, remote: CLIENT, order });
const T = Date.now() / 1000;

test('linked both ways, whichever side is stored first', async (t) => {
  for (const first of ['caller', 'served'] as const) {
    const store = storeOf(t);
    const a = caller(T, out(2));
    const b = served(T + 0.01, into(2));
    if (first === 'caller') await store.put(a);
    await store.put(b);
    if (first === 'served') await store.put(a);
    assert.equal((await store.find(a.id))!.sections.http![0]!.answered_by, b.id, first);
    assert.deepEqual((await store.find(b.id))!.caused_by, { capture: a.id, row: 0 }, first);
  }
});

test('another order on the same connection, or the other direction, links nothing', async (t) => {
  const store = storeOf(t);
  const a = caller(T, out(1));
  await store.put(a);
  await store.put(served(T + 0.01, into(2)));
  await store.put(served(T + 0.01, { local: CLIENT, remote: SERVER, order: 1 }));
  assert.equal((await store.find(a.id))!.sections.http![0]!.answered_by, undefined);
});

test('a key two captures claim links neither: never guessed', async (t) => {
  const store = storeOf(t);
  const a = caller(T, out(1));
  const b1 = served(T + 0.01, into(1));
  const b2 = served(T + 0.02, into(1));
  await store.put(a);
  await store.put(b1);
  await store.put(b2);
  assert.equal((await store.find(a.id))!.sections.http![0]!.answered_by, undefined);
  assert.equal((await store.find(b1.id))!.caused_by, undefined);
  assert.equal((await store.find(b2.id))!.caused_by, undefined);
  // The same capture stored again (a newer version) is not a rival.
  const store2 = storeOf(t);
  const c = caller(T, out(1));
  const d = served(T + 0.01, into(1));
  await store2.put(c);
  await store2.put(c);
  await store2.put(d);
  assert.equal((await store2.find(c.id))!.sections.http![0]!.answered_by, d.id);
});

test('a traceparent alone links; a traceparent that disagrees with the connection links nothing', async (t) => {
  const tp = (n: number) => `00-${'a'.repeat(31)}${n}-${'b'.repeat(15)}${n}-01`;
  const store = storeOf(t);
  const a = caller(T, null, tp(1));
  const b = served(T + 0.01, null, tp(1));
  await store.put(a);
  await store.put(b);
  assert.equal((await store.find(a.id))!.sections.http![0]!.answered_by, b.id);
  assert.deepEqual((await store.find(b.id))!.caused_by, { capture: a.id, row: 0 });

  const c = caller(T, out(7), tp(2));
  const byConnection = served(T + 0.01, into(7), tp(3));
  const byTrace = served(T + 0.01, null, tp(2));
  await store.put(c);
  await store.put(byConnection);
  await store.put(byTrace);
  assert.equal((await store.find(c.id))!.sections.http![0]!.answered_by, undefined);
});

test('a request outside its call’s time (a port given out again) links nothing', async (t) => {
  const store = storeOf(t);
  const a = caller(T, out(1));
  const late = served(T + 60, into(1));
  await store.put(a);
  await store.put(late);
  assert.equal((await store.find(a.id))!.sections.http![0]!.answered_by, undefined);
  assert.equal((await store.find(late.id))!.caused_by, undefined);
});

test('the critical path: calls in series, and of calls made at once the slowest', () => {
  const row = (time: number, duration: number) => ({ time, duration }) as never;
  // 0: 0-10, then 1 and 2 at once (10-50, 10-30), then 3: 50-60.
  assert.deepEqual([...criticalRows([row(0, 10), row(10, 40), row(10, 20), row(50, 10)])].sort(), [0, 1, 3]);
});
