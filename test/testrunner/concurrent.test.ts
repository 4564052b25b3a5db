import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';
import { runChild } from '../helpers/child';
import { startOrderedUpstream } from './orderedUpstream';
import { callsByCapture, callsByOwner } from './ownCalls';
import { tapReport, tapResults } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures');

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
