// Issue 28: with the file store and a config from the config file, an app's thread builds, masks and serializes
// no capture: it copies the kept bytes and hands the units over; the store's thread does the rest. Read from a
// child app under the preload: the per-thread work counters of its own thread (util/threadWork), printed once its
// captures are stored, and the captures themselves. With parts given to start() in code, which cannot cross
// threads, the app's thread builds as before and says why under PROBE_DEBUG.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { RedisServer } from '../helpers/redis';
import { RedisStore } from '../../src/store/RedisStore';
import type { Capture } from '../../src/capture/types';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

const WORK = path.join(REPO_ROOT, 'dist', 'util', 'threadWork.js');

// The first job sends 100 KB of JSON (over the 64 KiB that starts the store's thread at once); then 11 small ones.
const jobs = (startLine: string) => `${startLine}
const { job, start } = require('probe');
const { threadWork } = require(process.env.WORK);
(async () => {
  const big = JSON.stringify({ password: 'p', items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: 'item ' + i, note: 'n' })) });
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: big };
  await job('big', () => fetch(process.env.UP + '/echo', post).then((r) => r.text()));
  for (let i = 0; i < 11; i++) await job('job ' + i, () => fetch(process.env.UP + '/json').then((r) => r.text()));
  // Stores what is pending (the command capture included), then stops recording.
  await start().shutdown();
  console.log('WORK ' + JSON.stringify(threadWork));
})();`;

const workOf = (stdout: string) => JSON.parse(/^WORK (.*)$/m.exec(stdout)![1]!) as { builds: number; masked: number; serialised: number };

test('with the file store, no capture is built, masked or serialized on the app thread; the captures are whole and masked', async () => {
  const app = new TestApp({ 'run.js': jobs(''), 'probe.config.mjs': "export default { mask: { inputs: ['note'] } };\n" });
  const run = await app.run('run.js', { env: { UP: upstream.url, WORK } });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(workOf(run.stdout), { builds: 0, masked: 0, serialised: 0, rows: 0, rowsSerialised: 0 }, run.stderr);
  const captures = app.captures();
  assert.deepEqual(captures.map((c) => c.name).sort(), ['big', ...Array.from({ length: 11 }, (_, i) => `job ${i}`), 'run.js'].sort());
  const big = captures.find((c) => c.name === 'big')!.sections.http![0]!;
  const payload = big.request_payload as { password: string; items: Array<{ note: string }> };
  assert.equal(payload.password, '********');
  assert.equal(payload.items.length, 2000);
  assert.ok(
    payload.items.every((item) => item.note === '********'),
    'the config file’s mask.inputs applied on the thread',
  );
  const small = captures.find((c) => c.name === 'job 3')!.sections.http![0]!;
  assert.equal(small.response_headers['set-cookie'], '********');
  assert.equal((small.response_capture?.cards as { user: { password: string } }).user.password, '********');
  assert.doesNotMatch(run.stderr, /\[probe\]/);
});

test('with parts given to start() in code, the app thread builds as before and says so under PROBE_DEBUG', async () => {
  const startLine = "require('probe').start({ mask: { headers: { 'x-request-id': { mask: () => 'hidden' } } } });";
  const app = new TestApp({ 'run.js': jobs(startLine) });
  const run = await app.run('run.js', { preload: 'none', env: { UP: upstream.url, WORK, PROBE_DEBUG: '1' } });
  assert.equal(run.code, 0, run.stderr);
  const work = workOf(run.stdout);
  assert.equal(work.builds, 13, run.stdout);
  assert.equal(work.serialised, 13, run.stdout);
  assert.equal(run.stderr.match(/building captures on the app thread: start\(\) was given parts in code/g)?.length, 1, run.stderr);
  const small = app.captures().find((c) => c.name === 'job 3')!.sections.http![0]!;
  assert.equal(small.response_headers['x-request-id'], 'hidden');
});

// A script whose one job keeps a big body starts the store's thread and ends at once: the exit path builds here
// what the thread has not taken yet, or waits for what it has, and the thread never holds the end.
const short = `const { job } = require('probe');
const big = JSON.stringify({ token: 't', pad: 'x'.repeat(100000) });
const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: big };
job('big', () => fetch(process.env.UP + '/echo', post).then((r) => r.text())).then(() => { END; });`;

for (const [how, end, code] of [
  ['ends by itself', '', 0],
  ['calls process.exit() at once', 'process.exit(5)', 5],
] as const) {
  test(`a script whose one job keeps 100 KB and ${how} keeps its captures, masked`, async () => {
    const app = new TestApp({ 'run.js': short.replace('END', end) });
    const run = await app.run('run.js', { env: { UP: upstream.url } });
    assert.equal(run.code, code, run.stderr);
    const captures = app.captures();
    assert.deepEqual(captures.map((c) => c.name).sort(), ['big', 'run.js'], run.stderr);
    const row = captures.find((c) => c.name === 'big')!.sections.http![0]!;
    assert.equal((row.request_payload as { token: string }).token, '********');
    assert.doesNotMatch(run.stderr, /\[probe\]/);
  });
}

// The rule in store/ThreadedStore.ts: the first 8 units are built on the app's thread while each keeps at most
// 64 KiB of body (a short script never pays for a thread); the 9th, or the first bigger one, starts the thread.
const smallThenBig = (before: number, bigAt: number | null) => `const { job, start } = require('probe');
const { threadWork } = require(process.env.WORK);
(async () => {
  const big = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
  for (let i = 0; i < ${before}; i++) {
    if (i === ${bigAt ?? -1}) await job('big', () => fetch(process.env.UP + '/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }).then((r) => r.text()));
    else await job('job ' + i, () => fetch(process.env.UP + '/json').then((r) => r.text()));
  }
  await start().shutdown();
  console.log('WORK ' + JSON.stringify(threadWork));
})();`;

for (const [what, count, bigAt, builtHere] of [
  ['12 small units: the first 8 are built on the app thread, the rest on the store thread', 12, null, 8],
  ['a unit over 64 KiB as the 4th: the 3 before it are built on the app thread, it and the rest on the store thread', 10, 3, 3],
] as const) {
  test(what, async () => {
    const app = new TestApp({ 'run.js': smallThenBig(count, bigAt) });
    const run = await app.run('run.js', { env: { UP: upstream.url, WORK } });
    assert.equal(run.code, 0, run.stderr);
    const work = workOf(run.stdout);
    assert.equal(work.builds, builtHere, run.stdout);
    assert.equal(work.serialised, builtHere, run.stdout);
    // The command capture too: every unit is stored, wherever it was built.
    assert.equal(app.captures().length, count + 1, run.stderr);
  });
}

// With storage.driver 'redis' the store's thread opens the Redis driver itself: the app's thread builds and
// serializes nothing, and the captures in Redis are those the app's thread builds (a part given in code keeps
// the build there: a header mask for a header no call has, so the captures are the same).
test('with the Redis store, no capture is built or serialized on the app thread, and the captures are those the app thread builds', async () => {
  const redis = await RedisServer.start();
  try {
    const runWith = async (prefix: string, startLine: string, preload: 'require' | 'none') => {
      const config = { mask: { inputs: ['note'] }, storage: { driver: 'redis', redis: { url: redis.url, prefix } } };
      const app = new TestApp({ 'run.js': jobs(startLine), 'probe.config.mjs': `export default ${JSON.stringify(config)};\n` });
      const run = await app.run('run.js', { preload, env: { UP: upstream.url, WORK, REDIS_URL: undefined, PROBE_DEBUG: undefined } });
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /\[probe\]/);
      const store = new RedisStore({ url: redis.url, prefix, ttl: 60, limit: 200 });
      try {
        const captures = await Promise.all((await store.index()).map(async (row) => (await store.find(row.id))!));
        return { work: workOf(run.stdout), captures };
      } finally {
        await store.close();
      }
    };
    const threaded = await runWith('threaded:', '', 'require');
    assert.deepEqual(threaded.work, { builds: 0, masked: 0, serialised: 0, rows: 0, rowsSerialised: 0 });
    const here = await runWith('here:', "require('probe').start({ mask: { headers: { 'x-not-sent': { mask: () => 'x' } } } });", 'none');
    assert.equal(here.work.builds, 13);
    // What a capture says of its calls, without what differs between two runs (ids, times, ports, pids).
    const content = (capture: Capture) =>
      JSON.stringify({
        name: capture.name,
        rows: (capture.sections.http ?? []).map((row) => ({
          request: row.request_payload,
          response: row.response_capture,
          headers: Object.fromEntries(Object.entries(row.response_headers).filter(([name]) => name !== 'date')),
        })),
      });
    const byName = (captures: Capture[]) => captures.map(content).sort();
    assert.equal(threaded.captures.length, 13);
    assert.deepEqual(byName(threaded.captures), byName(here.captures));
    const big = threaded.captures.find((c) => c.name === 'big')!.sections.http![0]!;
    assert.equal((big.request_payload as { password: string }).password, '********');
  } finally {
    await redis.kill();
  }
});
