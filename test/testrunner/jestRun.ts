import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collect, startChild } from '../helpers/child';
import type { Capture, HttpRow } from '../../src/capture/types';

/**
 * The loopback server the Jest suites call (`/fail` answers 500, every other path 200), closing each connection: a
 * keep-alive socket left open would hold a worker past Jest's grace period now and then, and Jest says so in its
 * report (with or without Probe), which would make the two reports differ by chance. Any origin may read it (a
 * jsdom page's XMLHttpRequest checks CORS: the page is `http://localhost/`).
 */
export async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
    res.setHeader('connection', 'close');
    res.setHeader('access-control-allow-origin', '*');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A fresh project folder beside the app's node_modules, with the files of each fixture folder in order (a later
 * folder's file replaces an earlier one's; `.txt` dropped: the repo's tsc and ESLint skip those). Its own
 * package.json makes it the app root Probe reports origins from. `name`: a folder of the test's own, where another
 * suite may run in the same cached app at once.
 */
export function copyProject(dir: string, fixtures: string[], only?: (name: string) => boolean, name = 'project'): string {
  const project = path.join(dir, name);
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project);
  for (const fixture of fixtures) {
    for (const name of readdirSync(fixture)) {
      if (only && !only(name)) continue;
      copyFileSync(path.join(fixture, name), path.join(project, name.replace(/\.txt$/, '')));
    }
  }
  return project;
}

export interface JestRun {
  code: number | null;
  pid: number;
  output: string;
}

/**
 * One `jest` run in the project, with a fresh cache (no recorded timings: two files go to two workers); `node`
 * gives Node's own flags (`--experimental-vm-modules`).
 */
export async function runJest(project: string, args: string[], env: NodeJS.ProcessEnv, node: string[] = []): Promise<JestRun> {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'probe-jest-cache-'));
  try {
    const bin = path.join(project, '..', 'node_modules', 'jest', 'bin', 'jest.js');
    const child = startChild(process.execPath, [...node, bin, '--ci', `--cacheDirectory=${cache}`, ...args], { cwd: project, env });
    const pid = child.pid ?? -1;
    const run = await collect(child, 180_000);
    return { code: run.code, pid, output: `${run.stdout}\n${run.stderr}` };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/**
 * The same Jest run twice: without Probe (no preload, `plainArgs` name Jest's own environment) and with it
 * (`preload` in NODE_OPTIONS, the project's config naming Probe's environment), the project's `.probe` cleared
 * between (and `between` called: a test's own state to reset). Holds what every Jest test asks of the pair: the run with Probe exits as the plain one, prints the same
 * report (timings and process ids aside) and nothing of Probe's. Answers the run with Probe.
 */
export async function runBothWays(
  project: string,
  args: { plain: string[]; probe: string[] },
  env: NodeJS.ProcessEnv,
  options: { preload?: string; node?: string[]; between?: () => void } = {},
): Promise<JestRun> {
  const plain = await runJest(project, args.plain, env, options.node);
  rmSync(path.join(project, '.probe'), { recursive: true, force: true });
  options.between?.();
  const run = await runJest(project, args.probe, { ...env, NODE_OPTIONS: options.preload ?? '--require probe/register' }, options.node);
  assert.equal(
    plain.code,
    run.code,
    `same exit code as without Probe
${run.output}`,
  );
  assert.deepEqual(report(run.output), report(plain.output), "Jest's report is the same as without Probe");
  assert.doesNotMatch(run.output, /\[probe\]/i, 'Probe adds nothing to the test output');
  return run;
}

/** A capture's HTTP rows. */
export const rowsOf = (capture: Capture): HttpRow[] => capture.sections.http ?? [];

/** A row URL's path and query (what the fixture suites name their calls by). */
export const pathOf = (url: string): string => new URL(url).pathname + new URL(url).search;

/**
 * What Jest prints when a process outlives a deadline after the run: a worker past its grace period, the `jest`
 * process a second after its results. On a loaded machine either comes and goes with or without Probe.
 */
const EXIT_TIMING =
  /^(A worker process has failed to exit gracefully|Jest did not exit one second after|'?This usually means that there are asynchronous operations)/;

/**
 * Jest's report without its timings and process ids (Node's warnings name theirs), line by line in order of text
 * (workers finish files in any order).
 */
export function report(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => !/^Time:/.test(line.trim()) && !EXIT_TIMING.test(line.trim()))
    .map((line) =>
      line
        .replace(/\s*\(\d+(\.\d+)? m?s\)/g, '')
        .replace(/^\(node:\d+\)/, '(node)')
        .trimEnd(),
    )
    .filter(Boolean)
    .sort();
}

/** The line of each call in a test file: the line that names its path (`${base}/ok?test=top`). */
export function expectedLine(project: string, file: string, pathAndQuery: string): number {
  const lines = readFileSync(path.join(project, file), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.includes(`\${base}${pathAndQuery}`));
  assert.ok(at >= 0, `${pathAndQuery} in ${file}`);
  return at + 1;
}

/** The environment of a Jest run: the runner's own Probe settings left out, the suite's upstream, no colours. */
export function jestEnv(base: NodeJS.ProcessEnv, upstream: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, UPSTREAM: upstream, CI: '1', NO_COLOR: '1' };
  delete env.NODE_TEST_CONTEXT;
  return env;
}
