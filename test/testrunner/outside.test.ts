import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { runChild } from '../helpers/child';
import { installPinned } from '../helpers/pinned';
import { CACHE, cleanEnv } from './install';
import { checkTestCaptures, readCaptures, startUpstream } from './suite';
import { tapResults } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures');

/** Probe packed and installed in a folder of its own, as `npm install` in a tools folder (or `-g`) leaves it. */
const installProbe = () =>
  installPinned({ dir: path.join(CACHE, 'outside-probe'), package: { name: 'testrunner-outside-probe', dependencies: {} }, probe: true });
/** The test runners, pinned, in an app without Probe. */
const installRunners = (vitest: string) =>
  installPinned({
    dir: path.join(CACHE, `outside-runners-${vitest}`),
    package: { name: `testrunner-outside-runners-${vitest}`, type: 'module', dependencies: { vitest, mocha: '11.7.5' } },
    probe: false,
  });

/** How the project gets Probe, which it does not depend on. */
type Layout = 'own folder' | 'probe run' | 'linked';

/**
 * A project folder beside the runners' node_modules (so that one runner's run does not pick up another's files),
 * with one fixture; `linked`: its node_modules/probe is a link to Probe's own folder (`npm link`, a `file:` dependency).
 */
function project(apps: string, name: string, fixture: string, layout: Layout, probeDir: string): string {
  const folder = path.join(apps, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, type: 'module', private: true }));
  copyFileSync(path.join(FIXTURES, fixture), path.join(folder, path.basename(fixture).replace(/^vitest\./, '')));
  if (layout === 'linked') {
    mkdirSync(path.join(folder, 'node_modules'));
    symlinkSync(path.join(probeDir, 'node_modules', 'probe'), path.join(folder, 'node_modules', 'probe'), 'dir');
  }
  return folder;
}

/** Runs `command` in the project with Probe preloaded from outside it, the way `layout` says. */
function runWithProbe(folder: string, layout: Layout, probeDir: string, command: string[], env: NodeJS.ProcessEnv) {
  const probe = path.join(probeDir, 'node_modules', 'probe');
  if (layout === 'probe run')
    return runChild(process.execPath, [path.join(probe, 'dist', 'cli', 'main.js'), 'run', '--no-dashboard', '--', process.execPath, ...command], {
      cwd: folder,
      env,
    });
  const register = layout === 'linked' ? 'probe/register' : path.join(probe, 'dist', 'register.js');
  return runChild(process.execPath, command, { cwd: folder, env: { ...env, NODE_OPTIONS: `--require ${register}` } });
}

const statuses = (captures: Capture[]) =>
  captures
    .filter((capture) => capture.type === 'test')
    .map((capture) => `${capture.name}: ${capture.status}`)
    .sort();

/**
 * Probe installed outside the project (its own folder, run from there with `probe run`, or linked into the
 * project from there): each runner's tests are test captures, each with the runner's own verdict. The oracle is
 * the runner's report of the same run.
 */
describe('test runners with Probe installed outside the project', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let probeDir: string;
  before(async () => {
    upstream = await startUpstream();
    probeDir = await installProbe();
  });
  after(() => upstream.close());

  const env = (): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, CI: '1', NO_COLOR: '1' };
    delete base.NODE_TEST_CONTEXT;
    return base;
  };

  const vitestRuns: Array<{ version: string; pool: string; layout: Layout }> = [
    { version: '4.1.12', pool: 'forks', layout: 'own folder' },
    { version: '4.1.12', pool: 'vmThreads', layout: 'own folder' },
    { version: '4.1.12', pool: 'vmForks', layout: 'own folder' },
    { version: '4.1.12', pool: 'forks', layout: 'probe run' },
    { version: '4.1.12', pool: 'threads', layout: 'linked' },
    { version: '3.2.4', pool: 'forks', layout: 'own folder' },
  ];
  for (const { version, pool, layout } of vitestRuns) {
    it(`Vitest ${version}, pool ${pool}, Probe ${layout}`, async () => {
      const apps = await installRunners(version);
      const folder = project(apps, `vitest-${pool}-${layout.replace(' ', '-')}`, 'vitest.suite.test.js', layout, probeDir);
      const command = ['../node_modules/vitest/vitest.mjs', 'run', `--pool=${pool}`, '--reporter=json', '--outputFile=report.json'];
      const run = await runWithProbe(folder, layout, probeDir, command, env());
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.code, 1, `the suite has failing tests\n${output}`);
      const report = JSON.parse(readFileSync(path.join(folder, 'report.json'), 'utf8')) as {
        testResults: Array<{ assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }> }>;
      };
      const expected = report.testResults
        .flatMap((file) => file.assertionResults)
        .map((test) => `${[...test.ancestorTitles, test.title].join(' > ')}: ${test.status}`)
        .sort();
      assert.equal(expected.length, 4, output);
      const captures = readCaptures(folder);
      assert.deepEqual(statuses(captures), expected, `a test capture per test, with Vitest's status\n${output}`);
      // Each capture's name path is the one Vitest reports (its suites' titles, then its own).
      assert.deepEqual(
        captures
          .filter((capture) => capture.type === 'test')
          .map((capture) => JSON.stringify(capture.meta.test_path))
          .sort(),
        report.testResults
          .flatMap((file) => file.assertionResults)
          .map((test) => JSON.stringify([...test.ancestorTitles, test.title]))
          .sort(),
      );
      checkTestCaptures(captures, output);
      const commands = captures.filter((capture) => capture.type === 'command');
      assert.deepEqual(
        commands.map((capture) => capture.name),
        ['vitest suite.test.js'],
      );
      // A forked worker Vitest stops (SIGTERM) once its file is done ended as Vitest meant it to.
      if (pool.includes('orks')) assert.equal(commands[0]!.status, '0', output);
    });
  }

  for (const layout of ['own folder', 'linked'] as const) {
    it(`Mocha, Probe ${layout}`, async () => {
      const apps = await installRunners('4.1.12');
      const folder = project(apps, `mocha-${layout.replace(' ', '-')}`, 'mocha/suite.spec.cjs', layout, probeDir);
      const run = await runWithProbe(folder, layout, probeDir, ['../node_modules/mocha/bin/mocha.js', '--reporter', 'json', 'suite.spec.cjs'], env());
      const output = `${run.stdout}\n${run.stderr}`;
      const json = JSON.parse(run.stdout) as { passes: Array<{ fullTitle: string }>; failures: Array<{ fullTitle: string }> };
      const expected = [...json.passes.map((test) => `${test.fullTitle}: passed`), ...json.failures.map((test) => `${test.fullTitle}: failed`)].sort();
      assert.equal(expected.length, 4, output);
      const captures = readCaptures(folder);
      // Mocha's full title joins the names with a space.
      assert.deepEqual(
        statuses(captures).map((line) => line.split(' > ').join(' ')),
        expected,
        output,
      );
      checkTestCaptures(captures, output);
    });

    it(`node --test, Probe ${layout}`, async () => {
      const apps = await installRunners('4.1.12');
      const folder = project(apps, `node-test-${layout.replace(' ', '-')}`, 'node-test.suite.test.mjs', layout, probeDir);
      const run = await runWithProbe(folder, layout, probeDir, ['--test', '--test-reporter=tap', 'node-test.suite.test.mjs'], env());
      const output = `${run.stdout}\n${run.stderr}`;
      const expected = [...tapResults(run.stdout)].map(([name, passed]) => `${name}: ${passed ? 'passed' : 'failed'}`).sort();
      assert.equal(expected.length, 4, output);
      const captures = readCaptures(folder);
      assert.deepEqual(statuses(captures), expected, output);
      checkTestCaptures(captures, output);
    });
  }
});
