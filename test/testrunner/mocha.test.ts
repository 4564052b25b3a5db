import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runChild } from '../helpers/child';
import { cleanEnv, installRunnerApp } from './install';
import { checkTestCaptures, readCaptures, startUpstream } from './suite';

const FIXTURE = path.join(__dirname, 'fixtures', 'mocha', 'suite.spec.cjs');
const SKIPS = path.join(__dirname, 'fixtures', 'mocha', 'skips.spec.cjs');
/** Pinned: Mocha 10 and 11. */
const VERSIONS = ['10.8.2', '11.7.5'];

interface MochaJson {
  stats: Record<string, unknown>;
  tests: Array<{ fullTitle: string; err: Record<string, unknown>; duration?: number }>;
  failures: Array<{ fullTitle: string }>;
  passes: Array<{ fullTitle: string }>;
  pending: Array<{ fullTitle: string }>;
}

/** Mocha's JSON report without what changes from run to run (times, durations, stack traces' paths). */
function results(json: MochaJson): unknown {
  const strip = (list: Array<{ fullTitle: string; err?: Record<string, unknown> }>) =>
    list.map((test) => ({ fullTitle: test.fullTitle, err: test.err?.message ?? null })).sort((a, b) => a.fullTitle.localeCompare(b.fullTitle));
  const { tests, passes, failures, pending } = json.stats as Record<string, number>;
  return { stats: { tests, passes, failures, pending }, tests: strip(json.tests), failures: strip(json.failures), pending: strip(json.pending) };
}

/** Each test's status as Mocha's JSON report states it: the oracle for the test captures' statuses. */
function verdicts(json: MochaJson): Map<string, string> {
  return new Map<string, string>([
    ...json.passes.map((test) => [test.fullTitle, 'passed'] as const),
    ...json.failures.map((test) => [test.fullTitle, 'failed'] as const),
    ...json.pending.map((test) => [test.fullTitle, 'skipped'] as const),
  ]);
}

/**
 * Real Mocha runs of a small suite (passing, failing and skipped tests, nested describe, a root `before` and
 * beforeEach/afterEach making calls to a loopback server), serial and `--parallel`, under the preload alone. The
 * oracle is Mocha's own JSON reporter: the run with Probe reports the same results and exit code as the run without,
 * and each test capture's status is the one Mocha reported for that test. Mocha and the npm-packed Probe are
 * installed at test time into a cache outside the repository.
 */
describe('Mocha under the preload alone: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  for (const version of VERSIONS) {
    for (const parallel of [false, true]) {
      it(`mocha ${version}${parallel ? ' --parallel' : ''}`, async () => {
        const dir = await installRunnerApp(`mocha-${version}`, { mocha: version });
        copyFileSync(FIXTURE, path.join(dir, 'suite.spec.cjs'));
        const env: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, NO_COLOR: '1' };
        delete env.NODE_TEST_CONTEXT;
        const args = ['node_modules/mocha/bin/mocha.js', '--reporter', 'json', ...(parallel ? ['--parallel', '--jobs', '2'] : []), 'suite.spec.cjs'];

        const plain = await runChild(process.execPath, args, { cwd: dir, env });
        rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
        const run = await runChild(process.execPath, args, { cwd: dir, env: { ...env, NODE_OPTIONS: '--require probe/register' } });
        const output = `${run.stdout}\n${run.stderr}`;
        assert.equal(run.code, plain.code, `same exit code as without Probe\n${output}`);
        assert.equal(run.code, 2, `two tests fail: Mocha exits with the count\n${output}`);
        const json = JSON.parse(run.stdout) as MochaJson;
        assert.deepEqual(results(json), results(JSON.parse(plain.stdout) as MochaJson), "Mocha's results are the same as without Probe");
        assert.equal(run.stderr, plain.stderr);

        const captures = readCaptures(dir);
        checkTestCaptures(captures, output);
        // Each test capture's status is Mocha's verdict on that test.
        const verdict = verdicts(json);
        for (const capture of captures.filter((capture) => capture.type === 'test')) {
          assert.equal(capture.status, verdict.get(capture.name.split(' > ').join(' ')), capture.name);
        }
        const commands = captures.filter((capture) => capture.type === 'command');
        assert.equal(commands.length, 1, commands.map((capture) => capture.name).join(', '));
        if (parallel) {
          // A pool worker's command capture is named after the file it ran.
          assert.equal(commands[0]!.name, 'mocha suite.spec.cjs');
        } else {
          // Mocha sets process.exitCode in an 'exit' listener: the command capture says the code the process exited with.
          assert.equal(commands[0]!.status, String(run.code));
          const cli = path.join(dir, 'node_modules', 'probe', 'dist', 'cli', 'main.js');
          const listed = await runChild(process.execPath, [cli, 'list', '--json', '--type', 'command'], { cwd: dir, env });
          const rows = (JSON.parse(listed.stdout) as { captures: Array<{ status: string; has_errors: boolean }> }).captures;
          assert.deepEqual(
            rows.map((row) => [row.status, row.has_errors]),
            [['2', true]],
          );
        }
      });
    }
  }
  for (const version of VERSIONS) {
    it(`mocha ${version}: a test skipped once it started (this.skip() in it or in its beforeEach) is skipped, as Mocha reports`, async () => {
      const dir = await installRunnerApp(`mocha-${version}`, { mocha: version });
      copyFileSync(SKIPS, path.join(dir, 'skips.spec.cjs'));
      rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
      const env: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, NO_COLOR: '1', NODE_OPTIONS: '--require probe/register' };
      delete env.NODE_TEST_CONTEXT;
      const run = await runChild(process.execPath, ['node_modules/mocha/bin/mocha.js', '--reporter', 'json', 'skips.spec.cjs'], { cwd: dir, env });
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const json = JSON.parse(run.stdout) as MochaJson;
      assert.equal(json.pending.length, 2, 'Mocha reports the two skipped tests as pending');
      const verdict = verdicts(json);
      const tests = readCaptures(dir).filter((capture) => capture.type === 'test');
      assert.equal(tests.length, 3, tests.map((capture) => capture.name).join(', '));
      for (const capture of tests) assert.equal(capture.status, verdict.get(capture.name.split(' > ').join(' ')), capture.name);
    });
  }
});
