import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { TestApp } from '../helpers/app';
import { runChild } from '../helpers/child';
import { connectMcp } from '../helpers/mcp';
import { cleanEnv, installRunnerApp } from './install';
import { checkFailedList, checkTestCaptures, readCaptures, startUpstream } from './suite';

const FIXTURES = path.join(__dirname, 'fixtures');
/** Pinned: Vitest 3 (forks pool by default) and 4, both on Node 20. */
const VERSIONS = ['3.2.4', '4.1.9'];

/**
 * A real Vitest run of a small suite (passing and failing tests, nested describe, beforeAll/beforeEach/afterEach
 * making calls to a loopback server) under the preload, with the one line of configuration: `probe/vitest` as a
 * setup file. Vitest and the npm-packed Probe are installed at test time into a cache outside the repository.
 */
describe('Vitest under the preload with probe/vitest: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  const runs: Array<{ version: string; preload: 'require' | 'import'; pool: string }> = VERSIONS.flatMap((version) => [
    { version, preload: 'require', pool: 'forks' },
    { version, preload: 'import', pool: 'forks' },
  ]);
  // Threads: the test captures are whole, and the worker thread's own command capture (beforeAll calls) is kept as
  // the forks pool's is (runtime/threads: a thread stores as it ends, or when Vitest terminates it).
  runs.push({ version: VERSIONS[0]!, preload: 'require', pool: 'threads' });
  for (const { version, preload, pool } of runs) {
    it(`vitest ${version}, --${preload} probe/register, ${pool} pool`, async () => {
      const dir = await installRunnerApp(`vitest-${version}`, { vitest: version });
      copyFileSync(path.join(FIXTURES, 'vitest.suite.test.js'), path.join(dir, 'suite.test.js'));
      copyFileSync(path.join(FIXTURES, 'vitest.config.js'), path.join(dir, 'vitest.config.js'));
      rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
      const env: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, NODE_OPTIONS: `--${preload} probe/register`, CI: '1', NO_COLOR: '1' };
      delete env.NODE_TEST_CONTEXT;
      const run = await runChild(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', `--pool=${pool}`], { cwd: dir, env });
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.code, 1, `the suite has failing tests\n${output}`);
      assert.match(run.stdout, /Tests\s+2 failed \| 2 passed/, output);
      assert.doesNotMatch(output, /\[probe\]|sourcemap/i, 'Probe adds nothing to the test output');
      const captures = readCaptures(dir);
      checkTestCaptures(captures, output);
      const commands = captures.filter((capture) => capture.type === 'command').map((capture) => capture.name);
      assert.deepEqual(commands, ['vitest suite.test.js']);

      const app = { dir, env: () => ({ ...env, NODE_OPTIONS: '' }) } as unknown as TestApp;
      const cli = path.join(dir, 'node_modules', 'probe', 'dist', 'cli', 'main.js');
      const listed = await runChild(process.execPath, [cli, 'list', '--json', '--type', 'test', '--has-errors'], { cwd: dir, env: app.env() });
      checkFailedList(JSON.parse(listed.stdout));
      const mcp = await connectMcp(app);
      try {
        checkFailedList((await mcp.call('probe-list', { type: 'test', has_errors: true })).json);
      } finally {
        await mcp.close();
      }
    });
  }
});
