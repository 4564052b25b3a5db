// A Redis that is down, slow or restarted costs captures, never the app (issue 3).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RedisStore } from '../../src/store/RedisStore';
import { createLogger } from '../../src/util/logger';
import { REPO_ROOT, TestApp, eventually } from '../helpers/app';
import { collect, runChild, startChild, waitForLine } from '../helpers/child';
import { RedisServer, freePort } from '../helpers/redis';
import { makeCapture } from './contract';

const FIXTURES = path.join(__dirname, 'fixtures');

function logged(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, logger: createLogger((line) => lines.push(line)) };
}

function prefix(): string {
  return `probe-fault-${randomBytes(4).toString('hex')}:`;
}

function appFor(url: string, limit = 200): TestApp {
  return new TestApp({
    'probe.config.mjs': `export default { storage: { driver: 'redis', limit: ${limit}, redis: { url: ${JSON.stringify(url)}, prefix: ${JSON.stringify(prefix())} } } };\n`,
  });
}

function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  delete out.REDIS_URL;
  delete out.PROBE_DEBUG;
  return out;
}

function probeLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('[probe]'));
}

describe('redis store faults', () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.kill();
  });

  test('Redis down: puts resolve, the queue is bounded and counts drops, one warning, reads reject clearly', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const { lines, logger } = logged();
    const store = new RedisStore({ url, prefix: prefix(), ttl: 60, limit: 200, logger });
    try {
      for (let i = 0; i < 150; i++) await store.put(makeCapture());
      const stats = store.stats();
      assert.equal(stats.written, 0);
      assert.ok(stats.queued <= 100, `queued ${stats.queued}`);
      assert.equal(stats.queued + stats.dropped, 150);
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0]!, /Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/);
      await assert.rejects(
        store.index(),
        (error: Error & { code?: string }) => error.code === 'PROBE_STORE_UNREACHABLE' && error.message.includes(url.slice(8)),
      );
      await assert.rejects(store.find(makeCapture().id), { code: 'PROBE_STORE_UNREACHABLE' });
    } finally {
      await store.close();
    }
  });

  test('an app process on an unreachable Redis runs, ends on its own and warns once', async () => {
    const app = appFor(`redis://127.0.0.1:${await freePort()}`);
    const result = await runChild(process.execPath, [path.join(FIXTURES, 'app.mjs'), REPO_ROOT, app.dir, '300'], { cwd: app.dir, env: env() });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'done\n');
    assert.equal(probeLines(result.stderr).length, 1, result.stderr);
  });

  test('an app process on a Redis that accepts connections and never answers ends on its own', async () => {
    const frozen = await RedisServer.start();
    try {
      frozen.freeze();
      const app = appFor(frozen.url);
      const result = await runChild(process.execPath, [path.join(FIXTURES, 'app.mjs'), REPO_ROOT, app.dir, '20'], { cwd: app.dir, env: env() });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, 'done\n');
      assert.ok(probeLines(result.stderr).length <= 1, result.stderr);
    } finally {
      await frozen.kill();
    }
  });

  test('captures queued while Redis restarts are written once it is back', async () => {
    const { lines, logger } = logged();
    const store = new RedisStore({ url: server.url, prefix: prefix(), ttl: 60, limit: 200, logger });
    try {
      await store.put(makeCapture());
      assert.equal((await store.index()).length, 1);
      await server.stop();
      const during = [makeCapture(), makeCapture(), makeCapture()];
      for (const capture of during) await store.put(capture);
      await server.start(); // no persistence: what was written before the restart is gone
      await eventually(async () => (await store.index().catch(() => [])).length === 3);
      for (const capture of during) assert.deepEqual(await store.find(capture.id), capture);
      const next = makeCapture();
      await store.put(next);
      assert.equal((await store.index())[0]?.id, next.id);
      assert.ok(lines.length <= 1, lines.join('\n'));
    } finally {
      await store.close();
    }
  });

  test('Redis killed mid-run: the writing process finishes normally, warns once, and the limit still holds', async () => {
    const app = appFor(server.url, 50);
    const child = startChild(process.execPath, [path.join(FIXTURES, 'writer.mjs'), REPO_ROOT, app.dir, '400'], { cwd: app.dir, env: env() });
    const done = collect(child);
    await waitForLine(child, /(?:.*\n){20}/);
    await server.kill();
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim().split('\n').length, 400);
    assert.equal(probeLines(result.stderr).length, 1, result.stderr);
    await server.start();
    // After the restart the store works again for everyone, and the limit applies.
    const second = await runChild(process.execPath, [path.join(FIXTURES, 'writer.mjs'), REPO_ROOT, app.dir, '60'], { cwd: app.dir, env: env() });
    assert.equal(second.code, 0, second.stderr);
    const store = new RedisStore({
      url: server.url,
      prefix: /prefix: "([^"]+)"/.exec(readFileSync(path.join(app.dir, 'probe.config.mjs'), 'utf8'))![1]!,
      ttl: 60,
      limit: 50,
    });
    try {
      assert.equal((await store.index()).length, 50);
    } finally {
      await store.close();
    }
  });
});
