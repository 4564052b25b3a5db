import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv, installRunnerApp } from './install';
import { checkTestCaptures, readCaptures } from './suite';
import { copyProject, expectedLine, jestEnv, pathOf, rowsOf, runBothWays, runJest, startUpstream } from './jestRun';

const FIXTURE = path.join(__dirname, 'fixtures', 'jest-jsdom');
const FILE = 'dom.test.js';

/** Pinned: Jest 29 and 30, each with its jest-environment-jsdom (jsdom 20 and 26). */
const VERSIONS = ['29.7.0', '30.5.2'];
const dependencies = (version: string) => ({ jest: version, 'jest-environment-jsdom': version });

/** The line of `request.send()` in the suite's XMLHttpRequest helper: where jsdom's request starts. */
const sendLine = (project: string) =>
  readFileSync(path.join(project, FILE), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes('request.send()')) + 1;

/**
 * A real Jest run of a DOM suite (jsdom's document, window and XMLHttpRequest, node:http in a hook) in Jest's own
 * `jsdom` environment under the preload alone (and naming `probe/jest-jsdom`, still an option), against the same
 * run without Probe. Jest, jest-environment-jsdom and the npm-packed Probe are installed at test time into
 * a cache outside the repository.
 */
describe('Jest DOM suites under the preload alone: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  const runs = [...VERSIONS.map((version) => ({ version, named: false })), { version: VERSIONS[1]!, named: true }];
  for (const { version, named } of runs) {
    it(`jest ${version} with jest-environment-jsdom ${version}${named ? ', testEnvironment probe/jest-jsdom' : ''}`, async () => {
      const dir = await installRunnerApp(`jest-jsdom-${version}`, dependencies(version));
      const project = copyProject(dir, [FIXTURE]);
      const env = jestEnv(cleanEnv(), upstream.url);

      // Jest's own jsdom environment, without Probe and with it (or naming probe/jest-jsdom).
      const probeArgs = named ? ['--runInBand', '--testEnvironment=probe/jest-jsdom'] : ['--runInBand'];
      const run = await runBothWays(project, { plain: ['--runInBand'], probe: probeArgs }, env);
      const output = run.output;

      assert.equal(run.code, 1, `the suite has failing tests\n${output}`);
      assert.match(output, /Tests:\s+2 failed, 1 skipped, 2 passed, 5 total/, output);

      const captures = readCaptures(project);
      checkTestCaptures(captures, output);
      assert.ok(!captures.some((capture) => rowsOf(capture).some((row) => row.url.includes('/skipped'))));

      // node:http's calls at the line naming the path; XMLHttpRequest's at its send(), called from that line.
      const send = sendLine(project);
      for (const capture of captures) {
        for (const row of rowsOf(capture)) {
          const where = `${pathOf(row.url)} in ${capture.name}: ${JSON.stringify(row.origin)}`;
          assert.equal(row.origin?.file, FILE, where);
          const caller = expectedLine(project, FILE, pathOf(row.url));
          if (pathOf(row.url) === '/after-each') {
            assert.equal(row.origin.line, caller, where);
          } else {
            assert.equal(row.origin.line, send, where);
            assert.ok(
              row.origin.chain.some((frame) => frame.startsWith(`${FILE}:${caller} `) || frame === `${FILE}:${caller}`),
              where,
            );
          }
        }
      }
    });
  }

  it(`jest ${VERSIONS[1]}: an environment of the app's own made with probeEnvironment from probe/jest`, async () => {
    const version = VERSIONS[1]!;
    const dir = await installRunnerApp(`jest-jsdom-${version}`, dependencies(version));
    const project = copyProject(dir, [FIXTURE]);
    const env = jestEnv(cleanEnv(), upstream.url);
    const run = await runJest(project, ['--runInBand', '--testEnvironment=./custom-environment.js'], { ...env, NODE_OPTIONS: '--require probe/register' });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /Tests:\s+2 failed, 1 skipped, 2 passed, 5 total/, run.output);
    checkTestCaptures(readCaptures(project), run.output);
  });
});
