import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { RedisServer, freePort } from '../helpers/redis';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { RedisStore } from '../../src/store/RedisStore';

/** What every read command prints when the store cannot be read: exactly one line, naming it; non-zero exit. */
function assertOneLine(result: { code: number | null; stdout: string; stderr: string }, command: string, names: RegExp): void {
  assert.notEqual(result.code, 0, `${command}: ${result.stdout}`);
  assert.equal(result.stdout, '', command);
  const lines = result.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `${command}:\n${result.stderr}`);
  assert.match(lines[0]!, new RegExp(`^probe ${command.split(' ')[0]}: cannot read (the store: |captures in )`), command);
  assert.match(lines[0]!, names, command);
  assert.doesNotMatch(result.stderr, /^\s+at /m, command);
  assert.doesNotMatch(result.stderr, /captures wait in a queue/, command);
}

const READS = [['list'], ['show', IDS.order], ['rows', '--since', '1d'], ['rows', IDS.order], ['clear']];

test('Redis stopped, or at a wrong address: one line naming the URL, exit 1, no stack, no writer warning', async () => {
  const redis = await RedisServer.start();
  try {
    const prefix = 'cli-down:';
    const writer = new RedisStore({ url: redis.url, prefix, ttl: 3600, limit: 200 });
    for (const capture of fixtureCaptures()) await writer.put(capture);
    await writer.close();
    const app = new TestApp({ 'probe.config.json': JSON.stringify({ storage: { driver: 'redis', redis: { prefix } } }) });
    const env = { REDIS_URL: redis.url };

    const up = await app.cli(['rows', '--since', '1d', '--json', '--fields', 'status'], { env });
    assert.equal(up.code, 0, up.stderr);
    assert.equal(JSON.parse(up.stdout).captures, 2);

    await redis.stop();
    const url = redis.url.replace(/[.]/g, '\\.');
    for (const args of READS) assertOneLine(await app.cli(args, { env }), args.join(' '), new RegExp(`Redis at ${url}/? is unreachable`));

    const wrong = `redis://127.0.0.1:${await freePort()}`;
    for (const args of READS)
      assertOneLine(
        await app.cli(args, { env: { REDIS_URL: wrong } }),
        args.join(' '),
        new RegExp(`Redis at ${wrong.replace(/[.]/g, '\\.')}/? is unreachable`),
      );
  } finally {
    await redis.kill();
  }
});

test('a URL that is not a Redis URL: one configuration line naming the setting, exit 2', async () => {
  const app = new TestApp({ 'probe.config.json': JSON.stringify({ storage: { driver: 'redis' } }) });
  const result = await app.cli(['list'], { env: { REDIS_URL: 'http://127.0.0.1:6379' } });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^probe: bad configuration: storage\.redis\.url: .*\n$/);
});

test('a capture folder that cannot be read: one line naming it, exit 1', async () => {
  // Root reads any folder whatever its mode, so the folder is made unreadable as a folder: it is a file.
  const app = new TestApp();
  app.write('.probe/captures', 'not a folder');
  for (const args of READS) assertOneLine(await app.cli(args), args.join(' '), /cannot read captures in .*\.probe\/captures: ENOTDIR: not a directory$/);
});
