// At process.exit() the app's thread blocks in ThreadedStore.settleSync until the store's thread has finished what
// it was posted; a unit that thread failed to write (a Redis refusing writes) answers by a message this thread will
// never read. The thread counts its failures in shared memory, so settleSync returns them as lost, not written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RedisStore } from '../../src/store/RedisStore';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { loadConfig } from '../../src/config/load';
import { REPO_ROOT } from '../helpers/app';
import { callInput, unitOf } from '../helpers/call-input';
import { RedisServer } from '../helpers/redis';

const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

let redis: RedisServer;
before(async () => {
  redis = await RedisServer.start();
});
after(async () => {
  await redis?.kill();
});

test('a unit the store thread fails to write while the app thread waits at exit is returned as lost', { timeout: 60_000 }, async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-exit-failures-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'package.json'), '{"name":"app","private":true}');
  const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
  const driver = new RedisStore({ url: redis.url, prefix: `probe-exit-${process.pid}:`, ttl: 60, limit: 100 });
  const store = new ThreadedStore(driver, undefined, SCRIPT, { config, build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} } });
  t.after(() => store.close());
  // Past the first 8 small units (built here), written by the thread: it has loaded the config and is connected.
  for (let n = 10; n < 20; n++) {
    assert.equal(await store.putUnit({ ...unitOf([callInput({ spanId: `s${n}` })]), id: `cap_exitfail00${n}` }), true);
  }
  assert.ok(store.threaded, 'the store thread runs');
  t.after(() => redis.cli('CONFIG', 'SET', 'maxmemory', '0'));
  await redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
  await redis.cli('CONFIG', 'SET', 'maxmemory', '1');
  const refused = store.putUnit({ ...unitOf([callInput({ spanId: 'b' })]), id: 'cap_exitfail0099' });
  // Nothing async runs from here, as at process.exit(): the thread's answer stays unread.
  const lost = store.settleSync();
  assert.equal(lost, 1);
  // Once the loop runs again the put rejects as it always did (the writer counts it there when no exit came).
  await assert.rejects(refused, { code: 'PROBE_STORE_WRITE' });
});
