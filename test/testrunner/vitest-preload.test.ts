import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { runChild } from '../helpers/child';
import { cleanEnv, installRunnerApp } from './install';
import { checkTestCaptures, readCaptures, startUpstream } from './suite';

const FIXTURES = path.join(__dirname, 'fixtures');
/**
 * Pinned: the last Vitest 3, the current Vitest 4 and Vitest 5. Apps of their own in the cache: their project folders would
 * be test files of vitest.test.ts's runs.
 */
const VERSIONS = ['3.2.4', '4.1.12', '5.1.2'];
const install = (version: string) => installRunnerApp(`vitest-preload-${version}`, { vitest: version });

/** What Vitest's JSON reporter says of one test. */
interface JsonTest {
  ancestorTitles: string[];
  title: string;
  status: string;
}
interface JsonReport {
  testResults: Array<{ assertionResults: JsonTest[] }>;
}

/** A project folder beside the cached app's node_modules, with the fixture and no Vitest configuration at all. */
function project(dir: string, name: string, fixture: string): string {
  const folder = path.join(dir, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, type: 'module', private: true }));
  copyFileSync(path.join(FIXTURES, fixture), path.join(folder, fixture.replace(/^vitest\./, '')));
  return folder;
}

/** Vitest's JSON report without its timings (and the failure stacks' frames, which name Vitest's own files). */
function results(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'), (key, value: unknown) =>
    ['startTime', 'endTime', 'duration'].includes(key) ? undefined : key === 'failureMessages' ? (value as string[]).map((m) => m.split('\n')[0]) : value,
  );
}

const VITEST = ['../node_modules/vitest/vitest.mjs', 'run'];

/**
 * The same Vitest run twice, without Probe and with `preload` (`NODE_OPTIONS` or `probe run`), each with the JSON
 * reporter: same exit code, same results, nothing of Probe's in the output. Answers the JSON report of the run
 * with Probe, the oracle of each test capture's name and status.
 */
async function runBothWays(
  folder: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  preload: 'require' | 'probe run',
): Promise<{ code: number | null; report: JsonReport; output: string }> {
  const plain = await runChild(process.execPath, [...VITEST, ...args, '--reporter=json', '--outputFile=plain.json'], { cwd: folder, env });
  rmSync(path.join(folder, '.probe'), { recursive: true, force: true });
  const withProbe: string[] = [...VITEST, ...args, '--reporter=json', '--outputFile=probe.json'];
  const run =
    preload === 'require'
      ? await runChild(process.execPath, withProbe, { cwd: folder, env: { ...env, NODE_OPTIONS: '--require probe/register' } })
      : await runChild(
          process.execPath,
          [
            path.join(folder, '..', 'node_modules', 'probe', 'dist', 'cli', 'main.js'),
            'run',
            '--no-dashboard',
            '--',
            '../node_modules/.bin/vitest',
            ...withProbe.slice(1),
          ],
          { cwd: folder, env },
        );
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, plain.code, `same exit code as without Probe\n${output}`);
  assert.deepEqual(results(path.join(folder, 'probe.json')), results(path.join(folder, 'plain.json')), 'the same results as without Probe');
  assert.doesNotMatch(output, /\[probe\]/i, 'Probe adds nothing to the test output');
  return { code: run.code, report: JSON.parse(readFileSync(path.join(folder, 'probe.json'), 'utf8')) as JsonReport, output };
}

/** One capture of type `test` per test the runner ran, named by its path, with the runner's own status. */
function checkAgainstReport(captures: Capture[], report: JsonReport, output: string): void {
  const expected = report.testResults
    .flatMap((file) => file.assertionResults)
    .map((test) => `${[...test.ancestorTitles, test.title].join(' > ')}: ${test.status}`)
    .sort();
  const seen = captures
    .filter((capture) => capture.type === 'test')
    .map((capture) => `${capture.name}: ${capture.status}`)
    .sort();
  assert.deepEqual(seen, expected, `a test capture per test, with Vitest's status\n${output}`);
}

const paths = (capture: Capture) => (capture.sections.http ?? []).map((row) => new URL(row.url).pathname + new URL(row.url).search).sort();

/**
 * A loopback server that answers a call with `?after=/x` only once a call to `/x` has arrived (every other call at
 * once): two tests' calls are then in flight together for certain, with no timer.
 */
async function startRendezvous(): Promise<{ url: string; reset(): void; close(): Promise<void> }> {
  const arrived = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    arrived.add(url.pathname);
    for (const answer of waiting.get(url.pathname)?.splice(0) ?? []) answer();
    const answer = () => res.end('ok');
    const after = url.searchParams.get('after');
    if (!after || arrived.has(after)) answer();
    else waiting.set(after, [...(waiting.get(after) ?? []), answer]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reset: () => {
      arrived.clear();
      waiting.clear();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Vitest 3 and 4 with the preload alone, no Vitest configuration (no `probe/vitest` setup file): a real run of the
 * suite per pool, compared with the same run without Probe; the runner's JSON report is the oracle of each capture.
 */
for (const version of VERSIONS)
  describe(`Vitest ${version} under the preload alone: a capture per test, no configuration`, () => {
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    let rendezvous: Awaited<ReturnType<typeof startRendezvous>>;
    before(async () => {
      upstream = await startUpstream();
      rendezvous = await startRendezvous();
    });
    after(async () => {
      await upstream.close();
      await rendezvous.close();
    });

    const env = (url: string): NodeJS.ProcessEnv => {
      const base: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: url, CI: '1', NO_COLOR: '1' };
      delete base.NODE_TEST_CONTEXT;
      return base;
    };

    const runs: Array<{ pool: string; preload: 'require' | 'probe run' }> = [
      { pool: 'forks', preload: 'require' },
      { pool: 'threads', preload: 'require' },
      { pool: 'vmThreads', preload: 'require' },
      { pool: 'vmForks', preload: 'require' },
      { pool: 'forks', preload: 'probe run' },
    ];
    for (const { pool, preload } of runs) {
      it(`pool ${pool}, ${preload === 'require' ? '--require probe/register' : 'probe run -- node_modules/.bin/vitest run'}`, async () => {
        const dir = await install(version);
        const folder = project(dir, `preload-${pool}-${preload.replace(' ', '-')}`, 'vitest.suite.test.js');
        const run = await runBothWays(folder, env(upstream.url), [`--pool=${pool}`], preload);
        assert.equal(run.code, 1, `the suite has failing tests\n${run.output}`);
        const captures = readCaptures(folder);
        checkAgainstReport(captures, run.report, run.output);
        checkTestCaptures(captures, run.output);
        const commands = captures.filter((capture) => capture.type === 'command').map((capture) => capture.name);
        assert.deepEqual(commands, ['vitest suite.test.js']);
      });
    }

    for (const pool of ['forks', 'threads', 'vmThreads']) {
      it(`describe.concurrent and test.concurrent, pool ${pool}: each test keeps its own calls, made while the other's are in flight`, async () => {
        const dir = await install(version);
        const folder = project(dir, `concurrent-${pool}`, 'vitest.concurrent.test.js');
        rendezvous.reset();
        const run = await runBothWays(folder, env(rendezvous.url), [`--pool=${pool}`], 'require');
        assert.equal(run.code, 0, run.output);
        const captures = readCaptures(folder);
        checkAgainstReport(captures, run.report, run.output);
        const seen = Object.fromEntries(captures.filter((capture) => capture.type === 'test').map((capture) => [capture.name, paths(capture)]));
        assert.deepEqual(seen, {
          'together > a': ['/a1?after=/b1', '/a2?after=/b2', '/each-a'],
          'together > b': ['/b1?after=/a1', '/b2?after=/a2', '/each-b'],
          'after them': ['/c1'],
          c: ['/c2?after=/d2'],
          d: ['/d2?after=/c2'],
        });
        assert.ok(!captures.some((capture) => capture.type === 'command'), 'no call outside the tests');
      });
    }

    for (const pool of ['forks', 'vmThreads']) {
      it(`a test skipped at run time (ctx.skip()) is skipped, as Vitest reports it, pool ${pool}`, async () => {
        const dir = await install(version);
        const folder = project(dir, `skip-${pool}`, 'vitest.skip.test.js');
        const run = await runBothWays(folder, env(upstream.url), [`--pool=${pool}`], 'require');
        assert.equal(run.code, 0, run.output);
        const captures = readCaptures(folder);
        checkAgainstReport(captures, run.report, run.output);
        const seen = Object.fromEntries(captures.filter((capture) => capture.type === 'test').map((capture) => [capture.name, paths(capture)]));
        assert.deepEqual(seen, {
          'runtime > skips itself': ['/ok?hook=each', '/ok?test=skips'],
          'runtime > skips on a condition': ['/ok?hook=each', '/ok?test=condition'],
          'runtime > runs': ['/ok?hook=each', '/ok?test=runs'],
        });
        for (const capture of captures.filter((capture) => capture.type === 'test' && capture.status === 'skipped')) {
          assert.equal(capture.ended_by, 'return', `${capture.name}: a skipped test ended without an error`);
        }
      });
    }
  });
