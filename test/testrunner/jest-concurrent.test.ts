import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv, installRunnerApp } from './install';
import { readCaptures } from './suite';
import { copyProject, jestEnv, runBothWays } from './jestRun';
import { startOrderedUpstream } from './orderedUpstream';
import { callsByCapture, callsByOwner } from './ownCalls';

const JEST_FIXTURE = path.join(__dirname, 'fixtures', 'jest-concurrent');
/** A second file of concurrent tests: with it, Jest runs the two files in two workers. */
const SECOND_FILE = path.join(__dirname, 'fixtures', 'jest-concurrent-second');
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

/** What Jest's JSON report (`--json`) says of each test: passed or failed, by name path. */
function jestVerdicts(file: string): Map<string, string> {
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    testResults: Array<{ assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }> }>;
  };
  const verdicts = new Map<string, string>();
  for (const result of report.testResults.flatMap((file) => file.assertionResults)) {
    verdicts.set([...result.ancestorTitles, result.title].join(' > '), result.status);
  }
  return verdicts;
}

/**
 * Jest's `test.concurrent` (and `.each`) under the preload alone, with the tests' calls interleaved for certain by
 * the loopback server, and sequential tests with `beforeEach`/`afterEach` hooks among them (Jest runs no such hook
 * for a concurrent test; Jest 29 starts concurrent tests' functions before any test's turn, so they run on through
 * the sequential tests' hooks). Oracles: the calls the server received, each naming its test (a hook's, by the
 * test Jest's `currentTestName` says it runs for), and Jest's JSON report for each test's status.
 */
describe('jest test.concurrent: each keeps its own calls', () => {
  for (const version of VERSIONS) {
    for (const mode of ['runInBand', 'workers'] as const) {
      it(`jest ${version} test.concurrent, ${mode === 'workers' ? 'two files in two workers' : 'in band'}`, async () => {
        // The same cached app as jest.test.ts (same pins).
        const dir = await installRunnerApp(`jest-${version}`, dependencies(version));
        const workers = mode === 'workers';
        const project = copyProject(dir, workers ? [JEST_FIXTURE, SECOND_FILE] : [JEST_FIXTURE], undefined, `project-concurrent-${mode}`);
        const results = path.join(project, 'results.json');
        const args = [workers ? '--maxWorkers=2' : '--runInBand', '--json', `--outputFile=${results}`];
        const upstream = await startOrderedUpstream();
        try {
          const env = jestEnv(cleanEnv(), upstream.url);
          const run = await runBothWays(project, { plain: args, probe: args }, env, {
            between: () => upstream.arrived.splice(0),
          });
          assert.equal(run.code, 1, run.output);

          const verdicts = jestVerdicts(results);
          assert.equal(verdicts.size, workers ? 12 : 10, run.output);
          const captures = readCaptures(project);
          assert.deepEqual(
            Object.fromEntries(captures.filter((capture) => capture.type === 'test').map((capture) => [capture.name, capture.status])),
            Object.fromEntries(verdicts),
            "one capture per test, its status as Jest's report says",
          );
          const owners = callsByOwner(upstream.arrived);
          const expected = Object.fromEntries([...verdicts.keys(), ''].map((name) => [name, owners[name] ?? []]));
          assert.deepEqual(callsByCapture(captures), expected, `each test holds exactly its own calls and its hooks'\n${run.output}`);
          // Jest 29 starts concurrent tests ahead of their turn: one of them made a call after `middle`'s hooks ran.
          const overlapped = owners['together > rowy']!.includes('/together/rowy/2?after=/together/middle/after-each');
          assert.equal(overlapped, version.startsWith('29.'), 'a concurrent test still running while a sequential one runs its hooks');
          const besideAll = owners['beside > z']!.includes('/beside/z/2?after=/later-before');
          assert.equal(besideAll, version.startsWith('29.'), "a concurrent test still running while a block's beforeAll runs");
          // Where the tests ran: jest-worker children (the preload reached them through NODE_OPTIONS), or Jest itself.
          const pids = new Set(captures.map((capture) => capture.meta.pid));
          if (workers) {
            assert.ok(!pids.has(run.pid), 'the tests ran in workers');
            const byFile = (file: string) =>
              new Set(captures.filter((capture) => capture.type === 'test' && capture.name.startsWith(file)).map((c) => c.meta.pid));
            const [first, second] = [byFile('together'), byFile('second')];
            assert.equal(second.size, 1);
            assert.ok(![...first].some((pid) => second.has(pid)), 'the two files ran in two workers');
          } else {
            assert.deepEqual([...pids], [run.pid], 'the tests ran in the jest process');
          }
        } finally {
          await upstream.close();
        }
      });
    }
  }
});
