import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cleanEnv, installRunnerApp } from './install';
import { checkTestCaptures, readCaptures } from './suite';
import { copyProject, expectedLine, jestEnv, pathOf, rowsOf, runBothWays, runJest, startUpstream } from './jestRun';

/** The suite files of the CommonJS Jest test (valid ES modules as written), with this folder's ESM setup over them. */
const FIXTURES = [path.join(__dirname, 'fixtures', 'jest'), path.join(__dirname, 'fixtures', 'jest-esm')];
const SUITE = /^(suite\.test\.(js|ts\.txt)|package\.json|jest\.config\.js|tsconfig\.json)$/;
/** As written (no transform) and through ts-jest with `useESM` (types erased: every line moves). */
const FILES = ['suite.test.js', 'suite.test.ts'];

/** Pinned: Jest 29 and 30, and ts-jest 29.4 (which supports both). */
const VERSIONS = ['29.7.0', '30.5.2'];
const dependencies = (version: string) => ({ jest: version, 'ts-jest': '29.4.15', typescript: '5.9.3' });

/** Node's flag for Jest's native ESM: it evaluates the test files as vm.SourceTextModule. */
const VM_MODULES = ['--experimental-vm-modules'];

/**
 * A real Jest run of the Jest suite as native ES modules (`"type": "module"`, `node --experimental-vm-modules`):
 * one file as written, one through ts-jest kept as ESM, under the preload alone.
 * Each test case is a test capture, and origins name the lines as written (the ts-jest module's inline source
 * map is read from the code Jest hands vm.SourceTextModule). Jest, ts-jest and the npm-packed Probe are installed
 * at test time into a cache outside the repository.
 */
describe('Jest running test files as native ES modules under the preload alone', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  const runs = [
    { version: VERSIONS[0]!, mode: 'workers' },
    { version: VERSIONS[1]!, mode: 'workers' },
    { version: VERSIONS[1]!, mode: 'runInBand' },
  ] as const;
  for (const { version, mode } of runs) {
    it(`jest ${version}, ${mode}`, async () => {
      const dir = await installRunnerApp(`jest-esm-${version}`, dependencies(version));
      const project = copyProject(dir, FIXTURES, (name) => SUITE.test(name));
      const env = jestEnv(cleanEnv(), upstream.url);
      const args = mode === 'runInBand' ? ['--runInBand'] : ['--maxWorkers=2'];

      const run = await runBothWays(project, { plain: args, probe: args }, env, { node: VM_MODULES });
      const output = run.output;

      assert.equal(run.code, 1, `the suite has failing tests\n${output}`);
      assert.match(output, /Tests:\s+4 failed, 1 skipped, 4 passed, 9 total/, output);

      const captures = readCaptures(project);
      const tests = captures.filter((capture) => capture.type === 'test');
      for (const file of FILES) {
        const own = tests.filter((capture) => rowsOf(capture).length > 0 && rowsOf(capture).every((row) => row.origin?.file === file));
        checkTestCaptures(own, output, { outside: false });
      }
      assert.equal(tests.length, 8, 'one capture per test that ran (the skipped one has none)');

      const commands = captures.filter((capture) => capture.type === 'command');
      const beforeAll = commands.flatMap((capture) => rowsOf(capture).map((row) => `${pathOf(row.url)} ${row.origin?.file}`)).sort();
      assert.deepEqual(beforeAll, FILES.map((file) => `/before-all ${file}`).sort(), "beforeAll's calls in the command captures");

      for (const capture of captures) {
        for (const row of rowsOf(capture)) {
          const file = row.origin?.file ?? '';
          assert.ok(FILES.includes(file), `origin of ${row.url} in ${capture.name}: ${JSON.stringify(row.origin)}`);
          assert.equal(row.origin!.line, expectedLine(project, file, pathOf(row.url)), `line of ${pathOf(row.url)} in ${file}`);
        }
      }
    });
  }

  it('probe/jest-jsdom where jest-environment-jsdom is not installed: one clear line, and the run fails as Jest would', async () => {
    const dir = await installRunnerApp(`jest-esm-${VERSIONS[1]}`, dependencies(VERSIONS[1]!));
    const project = copyProject(dir, FIXTURES, (name) => SUITE.test(name));
    const env = jestEnv(cleanEnv(), upstream.url);
    const run = await runJest(
      project,
      ['--runInBand', '--testEnvironment=probe/jest-jsdom', 'suite.test.js'],
      { ...env, NODE_OPTIONS: '--require probe/register' },
      VM_MODULES,
    );
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /probe\/jest-jsdom: cannot load jest-environment-jsdom; install the one of your Jest version/, run.output);
  });
});
