import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runChild } from '../helpers/child';
import type { Capture } from '../../src/capture/types';
import { cleanEnv, installRunnerApp } from './install';
import { readCaptures, startUpstream } from './suite';
import { tapResults } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures', 'ava');
/** Pinned, with its whole tree locked (fixtures/ava/package-lock.json). */
const VERSION = '6.4.1';

const paths = (capture: Capture) => (capture.sections.http ?? []).map((row) => new URL(row.url).pathname + new URL(row.url).search).sort();
const byTest = (title: string) => `?test=${encodeURIComponent(title)}`;

/** The lines of AVA's TAP report, sorted and without the tests' numbers: tests running at once finish in any order. */
const lines = (tap: string) =>
  tap
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^(not )?ok \d+ /, '$1ok '))
    .sort();

/**
 * Real AVA runs of a small suite (tests at once and serial, passing, failing and known-failing, hooks calling a
 * loopback server around each test and once for the file), in worker threads (AVA's default) and in child
 * processes (`--no-worker-threads`), under the preload alone. The oracle is AVA's own TAP report: the run with
 * Probe reports the same as the run without, and each test capture's status is the one AVA reported for that test.
 */
describe('AVA under the preload alone: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  for (const threads of [true, false]) {
    it(`ava ${VERSION}${threads ? ' (worker threads)' : ' --no-worker-threads'}`, async () => {
      const dir = await installRunnerApp(`ava-${VERSION}`, { ava: VERSION }, path.join(FIXTURES, 'package-lock.json'));
      copyFileSync(path.join(FIXTURES, 'suite.test.mjs'), path.join(dir, 'suite.test.mjs'));
      const env: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, NO_COLOR: '1', CI: '1' };
      delete env.NODE_TEST_CONTEXT;
      const args = ['node_modules/ava/entrypoints/cli.mjs', '--tap', ...(threads ? [] : ['--no-worker-threads']), 'suite.test.mjs'];

      const plain = await runChild(process.execPath, args, { cwd: dir, env });
      rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
      const run = await runChild(process.execPath, args, { cwd: dir, env: { ...env, NODE_OPTIONS: '--require probe/register' } });
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.code, 1, `two tests fail\n${output}`);
      assert.equal(run.code, plain.code, `same exit code as without Probe\n${output}`);
      assert.deepEqual(lines(run.stdout), lines(plain.stdout), "AVA's report is the same as without Probe");

      // AVA's verdicts: the oracle. The skipped and to-do tests never run (TAP's # SKIP / # TODO): no capture.
      const verdicts = tapResults(run.stdout);
      assert.equal(verdicts.size, 5, output);
      const captures = readCaptures(dir);
      const tests = captures.filter((capture) => capture.type === 'test');
      assert.deepEqual(tests.map((capture) => capture.name).sort(), [...verdicts.keys()].sort(), output);
      for (const capture of tests) {
        assert.equal(capture.status, verdicts.get(capture.name) ? 'passed' : 'failed', capture.name);
        assert.deepEqual(capture.meta.test_path, [capture.name]);
        // Its file, as probe check keys snapshots by it.
        assert.equal(capture.meta.test_file, 'suite.test.mjs', capture.name);
        // Its own calls and its hooks', never another test's (they run at the same time).
        const own = paths(capture);
        assert.equal(own.length, 3, `${capture.name}: ${own.join(' ')}`);
        assert.ok(own.includes(`/before-each${byTest(capture.name)}`) && own.includes(`/after-each${byTest(capture.name)}`), own.join(' '));
      }
      const commands = captures.filter((capture) => capture.type === 'command');
      // The file-level hook's call is in the worker's command capture, named after the test file.
      assert.deepEqual(
        commands.map((capture) => [capture.name, paths(capture)]),
        [['ava suite.test.mjs', ['/before-all']]],
      );
      assert.ok(!captures.some((capture) => paths(capture).includes('/never')));
    });
  }
});
