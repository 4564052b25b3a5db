import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runChild } from '../helpers/child';
import type { Capture } from '../../src/capture/types';
import { cleanEnv, installRunnerApp } from './install';
import { readCaptures, startUpstream } from './suite';
import { tapReport } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures', 'node-tap');
/** Pinned, with its whole tree locked (fixtures/node-tap/package-lock.json). */
const VERSION = '21.8.0';
const FILES = ['suite.test.mjs', 'suite.test.ts'];

/**
 * The tests of node-tap's TAP report, each by its name path and its verdict: the test points that close a
 * `# Subtest:` (an assertion's test point closes none), a skipped test's (`# SKIP`) left out.
 */
function tapTests(tap: string): string[] {
  const tests: string[] = [];
  const open: string[] = [];
  for (const line of tap.split('\n')) {
    const header = /^( *)# Subtest: (.*)$/.exec(line);
    if (header) {
      open.length = header[1]!.length / 4;
      open.push(header[2]!);
      continue;
    }
    const point = /^( *)(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*| # time=.*)?$/.exec(line);
    if (!point) continue;
    const depth = point[1]!.length / 4;
    if (open.length !== depth + 1 || open[depth] !== point[3]) continue;
    if (!point[4]) tests.push(`${open.join(' > ')} ${point[2] ? 'failed' : 'passed'}`);
    open.length = depth;
  }
  return tests;
}

const paths = (capture: Capture) => (capture.sections.http ?? []).map((row) => new URL(row.url).pathname + new URL(row.url).search).sort();
const query = (name: string) => `?test=${encodeURIComponent(name)}`;

/**
 * Real `tap` runs (node-tap, a process per test file, TypeScript with no setup) of a small suite: passing, failing,
 * nested and skipped tests, beforeEach/afterEach and a file's `before` calling a loopback server, under the preload
 * alone. The oracle is tap's own TAP report (`--reporter=tap`): the run with Probe reports the same as the run
 * without, and the test captures are the tests it reports, each with the status it reports.
 */
describe('node-tap under the preload alone: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  it(`tap ${VERSION}: a .mjs and a .ts test file`, async () => {
    const dir = await installRunnerApp(`tap-${VERSION}`, { tap: VERSION }, path.join(FIXTURES, 'package-lock.json'));
    // The TypeScript file is kept as .txt here: it imports `tap`, which only the app folder has.
    for (const file of FILES) copyFileSync(path.join(FIXTURES, file.endsWith('.ts') ? `${file}.txt` : file), path.join(dir, file));
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, NO_COLOR: '1', CI: '1' };
    delete env.NODE_TEST_CONTEXT;
    const args = ['node_modules/tap/dist/esm/run.mjs', '--reporter=tap', '--disable-coverage', '--jobs=1', ...FILES];

    const plain = await runChild(process.execPath, args, { cwd: dir, env });
    rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
    const run = await runChild(process.execPath, args, { cwd: dir, env: { ...env, NODE_OPTIONS: '--require probe/register' } });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.code, 1, `a test fails\n${output}`);
    assert.equal(run.code, plain.code, `same exit code as without Probe\n${output}`);
    const report = (tap: string) => tapReport(tap).replace(/# time=[\d.]+m?s/g, '# time=…');
    assert.equal(report(run.stdout), report(plain.stdout), "tap's report is the same as without Probe");

    // tap's verdicts, each test by its name path under its file (the file's own result left out): the oracle.
    const files = tapTests(run.stdout).filter((test) => FILES.some((file) => test.startsWith(`${file} >`)));
    const reported = files.map((test) => test.slice(test.indexOf(' > ') + 3)).sort();
    assert.equal(reported.length, 8, output);
    const captures = readCaptures(dir);
    const tests = captures.filter((capture) => capture.type === 'test');
    assert.deepEqual(tests.map((capture) => `${capture.name} ${capture.status}`).sort(), reported, output);
    for (const capture of tests) {
      const own = capture.meta.test_path as string[];
      const name = own[own.length - 1]!;
      // Its function's call (a suite has none of its own) and its hooks', never another test's.
      const expected = [`/after-each${query(name)}`, `/before-each${query(name)}`];
      if (name !== 'suite') expected.push(`/${name === 'fails on a 500' ? 'fail' : 'ok'}${query(name)}`);
      assert.deepEqual(paths(capture), expected.sort(), capture.name);
    }
    // Each test names its file (probe check keys snapshots by it): four tests in each.
    for (const file of FILES) assert.equal(tests.filter((capture) => capture.meta.test_file === file).length, 4, file);
    // Each file's process: its `before` call in its command capture, named after the file; nothing else.
    const commands = captures.filter((capture) => capture.type === 'command');
    assert.deepEqual(
      commands.map((capture) => [capture.name, paths(capture)]).sort(),
      FILES.map((file) => [file, ['/before-all']]),
    );
    assert.ok(!captures.some((capture) => paths(capture).includes('/never')));
  });
});
