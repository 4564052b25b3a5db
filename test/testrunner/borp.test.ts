import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runChild } from '../helpers/child';
import { cleanEnv, installRunnerApp } from './install';
import { checkTestCaptures, readCaptures, startUpstream } from './suite';
import { tapReport, tapResults } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures');
/** Pinned, with its whole tree locked (fixtures/borp/package-lock.json). */
const VERSION = '0.21.0';

/**
 * borp, a test runner no part of Probe names: it runs each test file through node:test's `run()` (a child process
 * per file), so the contract reaches its tests through node:test's own lifecycle, found where the file loads
 * `node:test`. The oracle is borp's own TAP report: the same with Probe as without, and each test capture's status
 * the one it reports.
 */
describe('borp under the preload alone: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  it(`borp ${VERSION}`, async () => {
    const dir = await installRunnerApp(`borp-${VERSION}`, { borp: VERSION }, path.join(FIXTURES, 'borp', 'package-lock.json'));
    // borp's default files: test/**/*.test.{js,mjs,cjs}.
    mkdirSync(path.join(dir, 'test'), { recursive: true });
    copyFileSync(path.join(FIXTURES, 'node-test.suite.test.mjs'), path.join(dir, 'test', 'suite.test.mjs'));
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), UPSTREAM: upstream.url, NO_COLOR: '1' };
    delete env.NODE_TEST_CONTEXT;
    const args = ['node_modules/borp/borp.js', '--reporter=tap'];

    const plain = await runChild(process.execPath, args, { cwd: dir, env });
    rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
    const run = await runChild(process.execPath, args, { cwd: dir, env: { ...env, NODE_OPTIONS: '--require probe/register' } });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.code, 1, `two tests fail\n${output}`);
    assert.equal(run.code, plain.code, `same exit code as without Probe\n${output}`);
    assert.equal(tapReport(run.stdout), tapReport(plain.stdout), "borp's report is the same as without Probe");

    const captures = readCaptures(dir);
    checkTestCaptures(captures, output);
    const verdicts = tapResults(run.stdout);
    const tests = captures.filter((capture) => capture.type === 'test');
    assert.equal(tests.length, verdicts.size, output);
    for (const capture of tests) assert.equal(capture.status, verdicts.get(capture.name) ? 'passed' : 'failed', capture.name);
    assert.deepEqual(
      captures.filter((capture) => capture.type === 'command').map((capture) => capture.name),
      ['test/suite.test.mjs'],
    );
  });
});
