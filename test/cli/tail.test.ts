import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { RedisServer } from '../helpers/redis';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { startChild } from '../helpers/child';

/** A script run under the preload: one command capture with three calls (the last one fails with 503). */
const APP = `
const base = process.env.UPSTREAM;
(async () => {
  for (const route of ['/json', '/text', '/status/503']) {
    const res = await fetch(base + route + '?run=' + process.env.RUN);
    await res.text();
  }
})();
`;

interface Tail {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves once `count` lines matching `pattern` arrived. */
  until(pattern: RegExp, count: number): Promise<string[]>;
  /** SIGINT, then the exit code. */
  interrupt(): Promise<number | null>;
}

function startTail(app: TestApp, args: string[]): Promise<Tail> {
  const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'tail', ...args], {
    cwd: app.dir,
    env: app.env({ preload: 'none' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  const waiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const tail: Tail = {
    child,
    lines,
    stderr: () => stderr,
    async until(pattern, count) {
      for (;;) {
        const found = lines.filter((line) => pattern.test(line));
        if (found.length >= count) return found;
        if (child.exitCode !== null) throw new Error(`probe tail exited (${child.exitCode}): ${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async interrupt() {
      child.kill('SIGINT');
      return exited;
    },
  };
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (/watching the \w+ store/.test(stderr)) resolve(tail);
    });
    child.once('exit', (code) => reject(new Error(`probe tail exited (${code}) before watching: ${stderr}`)));
  });
}

for (const driver of ['file', 'redis'] as const) {
  describe(`probe tail (${driver} store): each call as its capture is stored, until SIGINT`, { timeout: 90_000 }, () => {
    let upstream: Upstream;
    let redis: RedisServer | null = null;
    let app: TestApp;
    const tails: Tail[] = [];
    before(async () => {
      upstream = await startUpstream();
      const files: Record<string, string> = { 'app.js': APP };
      if (driver === 'redis') {
        redis = await RedisServer.start();
        files['probe.config.json'] = JSON.stringify({ storage: { driver: 'redis', redis: { url: redis.url, prefix: 'tail-test:' } } });
      }
      app = new TestApp(files);
    });
    after(async () => {
      for (const tail of tails) if (tail.child.exitCode === null) tail.child.kill('SIGKILL');
      await upstream?.close();
      await redis?.kill();
    });

    test('lines arrive while a real app runs; --json and --where filter; SIGINT exits 0', async () => {
      // A capture stored before tail started is not printed.
      const early = await app.run('app.js', { env: { UPSTREAM: upstream.url, RUN: 'early' } });
      assert.equal(early.code, 0, early.stderr);

      const text = await startTail(app, []);
      tails.push(text);
      const json = await startTail(app, ['--json', '--where', 'failed=true', '--type', 'command']);
      tails.push(json);
      const none = await startTail(app, ['--json', '--type', 'request']);
      tails.push(none);

      for (const run of ['one', 'two']) {
        const result = await app.run('app.js', { env: { UPSTREAM: upstream.url, RUN: run } });
        assert.equal(result.code, 0, result.stderr);
        // Each run's calls are seen before the next run starts.
        const seen = await text.until(new RegExp(`run=${run}`), 3);
        assert.match(seen[0]!, new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  app\\.js  GET  200  [\\d.]+ms  ${upstream.url}/json\\?run=${run}  app\\.js:5$`));
        assert.match(seen[2]!, /  GET  503  .*\/status\/503\?run=/);
      }
      const failed = (await json.until(/status\/503/, 2)).map((line) => JSON.parse(line));
      assert.deepEqual(
        failed.map((row) => [row.capture_type, row.capture_name, row.row, row.status, row.failed, new URL(row.url).search]),
        [
          ['command', 'app.js', 2, 503, true, '?run=one'],
          ['command', 'app.js', 2, 503, true, '?run=two'],
        ],
      );
      assert.match(failed[0].at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(typeof failed[0].capture_id, 'string');

      assert.equal(await text.interrupt(), 0);
      assert.equal(await json.interrupt(), 0);
      assert.equal(await none.interrupt(), 0);
      assert.equal(text.lines.filter((line) => line.includes('run=early')).length, 0);
      assert.equal(text.lines.length, 6);
      assert.equal(json.lines.length, 2);
      assert.deepEqual(none.lines, []);
    });
  });
}

test('probe tail: a bad --where is one line and exit 2', async () => {
  const app = new TestApp();
  const bad = await app.cli(['tail', '--where', 'nope=1']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^probe tail: unknown field "nope" in where\[0\]/);
});
