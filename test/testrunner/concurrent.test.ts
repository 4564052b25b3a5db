import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { runChild } from '../helpers/child';
import { cleanEnv, installRunnerApp } from './install';
import { readCaptures } from './suite';
import { copyProject, jestEnv, pathOf, rowsOf, runBothWays, startUpstream } from './jestRun';
import { ownerOf, startOrderedUpstream } from './orderedUpstream';
import { tapReport, tapResults } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures');

/** Each capture's calls (path and query), by capture name; the process's command capture as `''`. */
function callsByCapture(captures: Capture[]): Record<string, string[]> {
  const seen: Record<string, string[]> = {};
  for (const capture of captures) {
    const key = capture.type === 'test' ? capture.name : capture.type === 'command' ? '' : `${capture.type} ${capture.name}`;
    (seen[key] ??= []).push(...rowsOf(capture).map((row) => pathOf(row.url)));
  }
  for (const calls of Object.values(seen)) calls.sort();
  return seen;
}

/** The calls the server received, by the test each names as its maker (see ownerOf). */
function callsByOwner(arrived: string[]): Record<string, string[]> {
  const owners: Record<string, string[]> = {};
  for (const call of arrived) (owners[ownerOf(call)] ??= []).push(call);
  for (const calls of Object.values(owners)) calls.sort();
  return owners;
}

/**
 * Tests running at once in one process each keep their own calls: a call belongs to the test whose async context
 * made it, not to whichever test was running when it was made. node:test `{ concurrency }` suites and subtests,
 * under the preload alone; the loopback server holds a test's call until another test's call arrived, so the
 * tests' calls interleave for certain. The oracles: the calls the server received, each naming the test that made
 * it, and node:test's own report (TAP) for each test's status; the run's report and exit code are the same
 * without Probe.
 */
describe('node --test, tests running at once: each keeps its own calls', () => {
  for (const [preload, file] of [
    ['require', 'concurrent.test.cjs'],
    ['import', 'concurrent.test.mjs'],
  ] as const) {
    it(`--${preload} probe/register, ${file}`, async () => {
      const app = new TestApp({ [file]: readFileSync(path.join(FIXTURES, 'node-test-concurrent', file), 'utf8') });
      const runs = [];
      for (const mode of ['none', preload] as const) {
        const upstream = await startOrderedUpstream();
        try {
          // NODE_TEST_CONTEXT: this test runs under node --test itself; the run below is a top-level one.
          const env = app.env({ preload: mode, env: { UPSTREAM: upstream.url, NODE_TEST_CONTEXT: undefined } });
          const run = await runChild(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: app.dir, env });
          runs.push({ ...run, arrived: [...upstream.arrived] });
        } finally {
          await upstream.close();
        }
      }
      const [plain, probed] = runs as [(typeof runs)[0], (typeof runs)[0]];
      const output = `${probed.stdout}\n${probed.stderr}`;
      assert.equal(probed.code, plain.code, `same exit code as without Probe\n${output}`);
      assert.equal(plain.code, 1, 'the fixture has failing tests');
      assert.equal(tapReport(probed.stdout), tapReport(plain.stdout), "node:test's report is the same as without Probe");
      assert.equal(probed.stderr, plain.stderr);

      const captures = app.captures();
      const verdicts = tapResults(probed.stdout);
      assert.ok(verdicts.size >= 9, output);
      const tests = captures.filter((capture) => capture.type === 'test');
      assert.deepEqual(
        Object.fromEntries(tests.map((capture) => [capture.name, capture.status])),
        Object.fromEntries([...verdicts].map(([name, passed]) => [name, passed ? 'passed' : 'failed'])),
        'one capture per test, its status as node:test reported it',
      );
      const owners = callsByOwner(probed.arrived);
      const expected = Object.fromEntries([...verdicts.keys(), ''].map((name) => [name, owners[name] ?? []]));
      assert.deepEqual(callsByCapture(captures), expected, `each test holds exactly its own calls and its hooks'\n${output}`);
      assert.equal(probed.arrived.length, plain.arrived.length);
    });
  }
});

const JEST_FIXTURE = path.join(FIXTURES, 'jest-concurrent');
/** Pinned: Jest 29 (starts concurrent tests' functions before their turn) and 30 (runs each concurrent test whole). */
const VERSIONS = ['29.7.0', '30.5.2'];
const dependencies = (version: string) => ({
  jest: version,
  'babel-jest': version,
  'ts-jest': '29.4.15',
  '@babel/core': '7.28.5',
  '@babel/preset-env': '7.28.5',
  typescript: '5.9.3',
});

/** Jest's `test.concurrent` under the preload alone, with the tests' calls interleaved for certain. */
describe('jest test.concurrent: each keeps its own calls', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  for (const version of VERSIONS) {
    it(`jest ${version} test.concurrent, in band`, async () => {
      // The same cached app as jest.test.ts (same pins).
      const dir = await installRunnerApp(`jest-${version}`, dependencies(version));
      const project = copyProject(dir, [JEST_FIXTURE]);
      const env = jestEnv(cleanEnv(), upstream.url);
      const run = await runBothWays(project, { plain: ['--runInBand'], probe: ['--runInBand'] }, env);
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /Tests:\s+3 passed, 3 total/, run.output);

      const captures = readCaptures(project);
      const seen = Object.fromEntries(
        captures.filter((capture) => capture.type === 'test').map((capture) => [capture.name, rowsOf(capture).map((row) => pathOf(row.url))]),
      );
      assert.deepEqual(seen, { 'together > a': ['/a1', '/a2'], 'together > b': ['/b1', '/b2'], 'after them': ['/c1'] });
      assert.ok(!captures.some((capture) => capture.type === 'command'), 'no call outside the tests');
    });
  }
});
