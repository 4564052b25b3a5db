import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cleanEnv, installRunnerApp } from './install';
import { checkTestCaptures, readCaptures } from './suite';
import { copyProject as copyFixtures, expectedLine, jestEnv, pathOf, rowsOf, runBothWays, startUpstream } from './jestRun';

const FIXTURE = path.join(__dirname, 'fixtures', 'jest');
/** The two test files: the same suite through babel-jest and through ts-jest (stored as .txt: the repo's tsc and ESLint skip it). */
const FILES = ['suite.test.js', 'suite.test.ts'];

/** Pinned: Jest 29 and 30, each with its babel-jest, and ts-jest 29.4 (which supports both). */
const VERSIONS = ['29.7.0', '30.5.2'];
const dependencies = (version: string) => ({
  jest: version,
  'babel-jest': version,
  'ts-jest': '29.4.15',
  '@babel/core': '7.28.5',
  '@babel/preset-env': '7.28.5',
  typescript: '5.9.3',
});

/** The fixture project, fresh: its own package.json (CommonJS), so its folder is the app root Probe reports origins from. */
const copyProject = (dir: string) => copyFixtures(dir, [FIXTURE]);

/**
 * A real Jest run of a small suite (passing, failing and skipped tests, nested describe, beforeAll/beforeEach/
 * afterEach making calls to a loopback server with fetch and node:http) in two files, one through babel-jest and
 * one through ts-jest, under the preload alone (the app's Jest config names nothing of Probe's; one run names
 * `probe/jest`, still an option). In jest-worker children and with --runInBand. Jest, its transformers and the npm-packed Probe are installed at
 * test time into a cache outside the repository.
 */
describe('Jest under the preload alone: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  const runs: Array<{ version: string; mode: 'workers' | 'runInBand'; preload: 'require' | 'import'; named?: boolean }> = VERSIONS.flatMap((version) => [
    { version, mode: 'workers' as const, preload: 'require' as const },
    { version, mode: 'runInBand' as const, preload: 'require' as const },
  ]);
  runs.push({ version: VERSIONS[1]!, mode: 'workers', preload: 'import' });
  runs.push({ version: VERSIONS[0]!, mode: 'workers', preload: 'require', named: true });
  for (const { version, mode, preload, named } of runs) {
    it(`jest ${version}, ${mode}, --${preload} probe/register${named ? ', testEnvironment probe/jest' : ''}`, async () => {
      const dir = await installRunnerApp(`jest-${version}`, dependencies(version));
      const project = copyProject(dir);
      const env = jestEnv(cleanEnv(), upstream.url);
      const args = mode === 'runInBand' ? ['--runInBand'] : ['--maxWorkers=2'];

      // Without Probe: no preload; with it: the same command (or naming probe/jest, Jest's node environment observed).
      const probeArgs = named ? [...args, '--testEnvironment=probe/jest'] : args;
      const run = await runBothWays(project, { plain: args, probe: probeArgs }, env, { preload: `--${preload} probe/register` });
      const output = run.output;

      assert.equal(run.code, 1, `the suite has failing tests\n${output}`);
      assert.match(output, /Tests:\s+4 failed, 1 skipped, 4 passed, 9 total/, output);

      const captures = readCaptures(project);
      const tests = captures.filter((capture) => capture.type === 'test');
      // The same suite in each file: its test captures told apart by the file their calls came from.
      for (const file of FILES) {
        const own = tests.filter((capture) => rowsOf(capture).every((row) => row.origin?.file === file) && rowsOf(capture).length > 0);
        checkTestCaptures(own, output, { outside: false });
      }
      assert.equal(tests.length, 8, 'one capture per test that ran (the skipped one has none)');
      assert.ok(!captures.some((capture) => rowsOf(capture).some((row) => row.url.includes('/skipped'))));

      // beforeAll's calls: in the command capture of the process that ran the file, one per file.
      const commands = captures.filter((capture) => capture.type === 'command');
      assert.ok(!commands.some((capture) => rowsOf(capture).length === 0), 'no empty command capture');
      const beforeAll = commands.flatMap((capture) => rowsOf(capture).map((row) => `${pathOf(row.url)} ${row.origin?.file}`)).sort();
      assert.deepEqual(beforeAll, FILES.map((file) => `/before-all ${file}`).sort());

      // Every call's origin is the line of the test file as written, not as babel-jest or ts-jest made it.
      for (const capture of captures) {
        for (const row of rowsOf(capture)) {
          const file = row.origin?.file ?? '';
          assert.ok(FILES.includes(file), `origin of ${row.url} in ${capture.name}: ${JSON.stringify(row.origin)}`);
          assert.equal(row.origin!.line, expectedLine(project, file, pathOf(row.url)), `line of ${pathOf(row.url)} in ${file}`);
        }
      }

      // Where the tests ran: jest-worker children (the preload reached them through NODE_OPTIONS), or Jest itself.
      const pids = new Set(captures.map((capture) => capture.meta.pid));
      if (mode === 'workers') {
        assert.ok(!pids.has(run.pid), 'the tests ran in workers');
        for (const capture of commands) assert.match(capture.name, /^jest suite\.test\.[jt]s( suite\.test\.[jt]s)?$/);
      } else {
        assert.deepEqual([...pids], [run.pid], 'the tests ran in the jest process');
      }
    });
  }
});
