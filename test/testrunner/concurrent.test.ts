import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cleanEnv, installRunnerApp } from './install';
import { readCaptures } from './suite';
import { copyProject, jestEnv, pathOf, rowsOf, runBothWays, startUpstream } from './jestRun';

const FIXTURE = path.join(__dirname, 'fixtures', 'jest-concurrent');
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

/**
 * Tests running at once in one process each keep their own calls: a call belongs to the test whose async context
 * made it, not to whichever test was running when it was made. Jest's `test.concurrent` under the preload alone,
 * with the two tests' calls interleaved for certain (each waits for the other's call before its next).
 */
describe('concurrent tests: each keeps its own calls', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  for (const version of VERSIONS) {
    it(`jest ${version} test.concurrent, in band`, async () => {
      // The same cached app as jest.test.ts (same pins).
      const dir = await installRunnerApp(`jest-${version}`, dependencies(version));
      const project = copyProject(dir, [FIXTURE]);
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
