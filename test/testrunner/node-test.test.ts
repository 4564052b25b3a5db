import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';
import { runChild } from '../helpers/child';
import { connectMcp } from '../helpers/mcp';
import { checkFailedList, checkTestCaptures, startUpstream } from './suite';
import { tapPaths, tapReport } from './tap';

const FIXTURES = path.join(__dirname, 'fixtures');

/**
 * A real `node --test` run of a small suite (passing and failing tests, nested describe, beforeEach/afterEach and
 * before making calls to a loopback server) under the preload, with no configuration at all.
 */
describe('node --test under the preload: a capture per test', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  for (const [preload, file] of [
    ['require', 'node-test.suite.test.cjs'],
    ['import', 'node-test.suite.test.mjs'],
    ['require', 'node-test.suite.test.mjs'],
  ] as const) {
    it(`--${preload} probe/register, ${file}`, async () => {
      const app = new TestApp({ [file]: readFileSync(path.join(FIXTURES, file), 'utf8') });
      // NODE_TEST_CONTEXT: this test runs under node --test itself; the run below is a top-level one.
      const env = app.env({ preload, env: { UPSTREAM: upstream.url, NODE_TEST_CONTEXT: undefined } });
      const run = await runChild(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: app.dir, env });
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.code, 1, `the suite has failing tests\n${output}`);
      assert.match(run.stdout, /# pass 2\n# fail 2/, output);
      const captures = app.captures();
      checkTestCaptures(captures, output);
      assert.equal(captures.find((capture) => capture.type === 'command')?.name, file);

      const listed = await app.cli(['list', '--json', '--type', 'test', '--has-errors']);
      checkFailedList(JSON.parse(listed.stdout));
      const mcp = await connectMcp(app);
      try {
        const answer = await mcp.call('probe-list', { type: 'test', has_errors: true });
        checkFailedList(answer.json);
        const failed = answer.json.captures.find((row: { name: string }) => row.name === 'suite > inner > fails on a 500');
        const rows = await mcp.call('probe-rows', { section: 'http', id: failed.id, fields: ['url', 'status'] });
        assert.deepEqual(rows.json.rows.map((row: { url: string; status: number }) => `${new URL(row.url).pathname} ${row.status}`).sort(), [
          '/after-each 200',
          '/before-each 200',
          '/fail 500',
        ]);
      } finally {
        await mcp.close();
      }
    });
  }

  it('a name holding " > " is told from nesting: each capture keeps its name path as node:test gives it (TAP)', async () => {
    const file = 'node-test.names.test.mjs';
    const app = new TestApp({ [file]: readFileSync(path.join(FIXTURES, file), 'utf8') });
    const env = app.env({ preload: 'import', env: { UPSTREAM: upstream.url, NODE_TEST_CONTEXT: undefined } });
    const run = await runChild(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: app.dir, env });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.code, 0, output);
    // node:test's own nesting, from its TAP report: the oracle of each path.
    const expected = tapPaths(run.stdout)
      .map(([names]) => JSON.stringify(names))
      .sort();
    assert.equal(expected.length, 4, output);
    const tests = app.captures().filter((capture) => capture.type === 'test');
    assert.deepEqual(tests.map((capture) => JSON.stringify(capture.meta.test_path)).sort(), expected, output);
    for (const capture of tests) {
      assert.equal(capture.name, (capture.meta.test_path as string[]).join(' > '), 'the name joins the path');
    }
    // Each test's own call: the one its path names.
    const calls = Object.fromEntries(
      tests.map((capture) => [JSON.stringify(capture.meta.test_path), (capture.sections.http ?? []).map((row) => new URL(row.url).search)]),
    );
    assert.deepEqual(calls, {
      '["a > b"]': ['?test=flat'],
      '["a","b"]': ['?test=nested'],
      '["x > y","z"]': ['?test=suite-flat'],
      '["x","y","z"]': ['?test=suite-nested'],
    });
  });

  it('one run of a suite past storage.limit is kept whole by default, and `probe list` shows every test', async () => {
    // 450 tests across suites, each with a call: more than the 200 captures `storage.limit` keeps of other kinds.
    const suites = Array.from({ length: 9 }, (_, s) => {
      const tests = Array.from({ length: 50 }, (_, n) => `  it('t${n}', async () => { await fetch(process.env.UPSTREAM + '/ok?s=${s}&t=${n}'); });`);
      return `describe('s${s}', () => {\n${tests.join('\n')}\n});`;
    });
    const file = 'many.test.mjs';
    const app = new TestApp({ [file]: `import { describe, it } from 'node:test';\n${suites.join('\n')}\n` });
    const env = app.env({ preload: 'require', env: { UPSTREAM: upstream.url, NODE_TEST_CONTEXT: undefined } });
    const run = await runChild(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: app.dir, env });
    const output = `${run.stdout}\n${run.stderr}`.slice(-4000);
    assert.equal(run.code, 0, output);
    const reported = tapPaths(run.stdout)
      .map(([names]) => names.join(' > '))
      .sort();
    assert.equal(reported.length, 450, output);
    const tests = app.captures().filter((capture) => capture.type === 'test');
    assert.deepEqual(tests.map((capture) => capture.name).sort(), reported, 'a capture per test node:test reported');
    const listed = await app.cli(['list', '--json', '--type', 'test', '--limit', '500']);
    // Every test is in the store's index (the answer itself is cut to its size budget).
    assert.equal((JSON.parse(listed.stdout) as { matched: number }).matched, 450, listed.stderr);
  });

  it('a test that calls t.skip() is skipped, as node:test reports it (TAP), with its calls', async () => {
    const file = 'node-test.skip.test.mjs';
    const app = new TestApp({ [file]: readFileSync(path.join(FIXTURES, file), 'utf8') });
    const run = (preload: 'require' | 'none') =>
      runChild(process.execPath, ['--test', '--test-reporter=tap', file], {
        cwd: app.dir,
        env:
          preload === 'none'
            ? { ...app.env({ env: { UPSTREAM: upstream.url, NODE_TEST_CONTEXT: undefined } }), NODE_OPTIONS: '' }
            : app.env({ preload, env: { UPSTREAM: upstream.url, NODE_TEST_CONTEXT: undefined } }),
      });
    const plain = await run('none');
    const probed = await run('require');
    const output = `${probed.stdout}\n${probed.stderr}`;
    assert.equal(probed.code, plain.code, output);
    assert.equal(probed.code, 0, output);
    assert.equal(tapReport(probed.stdout), tapReport(plain.stdout), 'the same report as without Probe');
    // node:test's verdicts: `# SKIP` on the test that skipped itself.
    const verdicts = [...probed.stdout.matchAll(/^ *ok \d+ - (.*?)( # SKIP.*)?$/gm)]
      .filter((match) => match[1] !== 'runtime')
      .map((match) => `runtime > ${match[1]}: ${match[2] ? 'skipped' : 'passed'}`)
      .sort();
    const tests = app.captures().filter((capture) => capture.type === 'test');
    assert.deepEqual(tests.map((capture) => `${capture.name}: ${capture.status}`).sort(), verdicts, output);
    assert.deepEqual(verdicts, ['runtime > runs: passed', 'runtime > skips itself: skipped']);
    const calls = Object.fromEntries(tests.map((capture) => [capture.name, (capture.sections.http ?? []).map((row) => new URL(row.url).search).sort()]));
    assert.deepEqual(calls, { 'runtime > runs': ['?hook=each', '?test=runs'], 'runtime > skips itself': ['?hook=each', '?test=skips'] });
    assert.equal(tests.find((capture) => capture.status === 'skipped')?.ended_by, 'return', 'a skipped test ended without an error');
  });
});
