import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../helpers/app';
import { runChild } from '../../helpers/child';
import { startUpstream } from '../../testrunner/jestRun';
import { installMatrix, jestPins, setupFolder } from './install';
import { assertOrigins, capturedRows, oracleLines } from './oracle';
import { readCaptures as capturedUnits } from '../../testrunner/suite';

const DIST = path.resolve(process.env.PROBE_ORIGIN_DIST ?? path.join(REPO_ROOT, 'dist'));
const REGISTER = path.join(DIST, 'register.js');

/**
 * A test file whose call sits below import lines and types every transformer erases or rewrites (Vite's SSR
 * transform turns each import into lines of its own; babel's CommonJS interop adds its own), with the oracle on the
 * call's line: the Error's frame as the runner's own stack mapping prints it.
 */
const testFile = (imports: string, typed: boolean) => `${imports}
import http from 'node:http';
import { strict as assert } from 'node:assert';
${typed ? '\ntype Reply = { ok: boolean };\ninterface Unused {\n  a: number;\n}\n' : ''}
test('calls the upstream', async () => {
  const seen${typed ? ': string[]' : ''} = [];
  const res = await fetch(process.env.UPSTREAM + '/runner', { headers: { 'x-seen': (seen.push(new Error('oracle').stack ?? ''), 'yes') } });
  console.log('ORACLE ' + (seen[0] ?? '').split('\\n')[1]);
  assert.equal(typeof http.request, 'function');
  assert.equal(res.status, 200);
});
`;

interface Runner {
  name: string;
  install: () => Promise<string>;
  files: Record<string, string>;
  /** node's arguments, from the setup folder. */
  run: string[];
  /** The call is in a capture of type `test` named after the test, `passed` as the run (exit 0) says. */
  testCapture?: boolean;
}

const JEST_BIN = '../../node_modules/jest/bin/jest.js';
const jestConfig = (environment: string | null) =>
  `module.exports = ${JSON.stringify({
    ...(environment ? { testEnvironment: environment } : {}),
    transform: { '\\.js$': 'babel-jest', '\\.ts$': ['ts-jest', { diagnostics: false }] },
    moduleFileExtensions: ['js', 'ts', 'json'],
  })};\n`;

const RUNNERS: Runner[] = [];
for (const version of ['29.7.0', '30.5.2']) {
  for (const transformer of ['babel-jest', 'ts-jest']) {
    for (const environment of [null, path.join(DIST, 'jest.js')]) {
      RUNNERS.push({
        name: `jest ${version}, ${transformer}, ${environment ? "testEnvironment: 'probe/jest'" : 'the preload alone'}`,
        install: () => installMatrix(`jest-${version}`, jestPins(version)),
        files: {
          'jest.config.js': jestConfig(environment),
          'tsconfig.json': JSON.stringify({
            compilerOptions: { target: 'es2022', module: 'commonjs', esModuleInterop: true, strict: true, skipLibCheck: true },
          }),
          'babel.config.js': "module.exports = { presets: [['@babel/preset-env', { targets: { node: 'current' } }]] };\n",
          [transformer === 'babel-jest' ? 'call.test.js' : 'call.test.ts']: testFile("import { describe } from '@jest/globals';", transformer === 'ts-jest'),
        },
        run: [JEST_BIN, '--ci', '--runInBand', '--no-cache'],
      });
    }
  }
}
for (const pool of ['forks', 'threads', 'vmThreads']) {
  RUNNERS.push({
    name: `vitest 3, pool ${pool}`,
    install: () => installMatrix(),
    files: {
      'call.test.ts': testFile("import { describe, test } from 'vitest';", true),
      'vitest.config.mjs': `export default { test: { pool: '${pool}' } };\n`,
    },
    run: ['../../node_modules/vitest/vitest.mjs', 'run'],
    testCapture: true,
  });
}
RUNNERS.push({
  name: 'node --test on TypeScript (tsx)',
  install: () => installMatrix(),
  files: { 'call.test.ts': testFile("import { describe, test } from 'node:test';", true) },
  run: ['--import', 'tsx', '--test', 'call.test.ts'],
});

describe('origin of calls in test files: equal to the line the runner itself maps an Error at the call to', { timeout: 1_800_000 }, () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream?.close());

  for (const runner of RUNNERS) {
    it(runner.name, async () => {
      const installed = await runner.install();
      const dir = setupFolder(installed, runner.name.replace(/[^a-z0-9]+/gi, '-'), runner.files);
      const env: NodeJS.ProcessEnv = { ...process.env, UPSTREAM: upstream.url, CI: '1', NO_COLOR: '1', NODE_OPTIONS: `--require ${REGISTER}` };
      for (const key of ['PROBE_ROOT', 'PROBE_CONFIG', 'PROBE_STORAGE', 'PROBE_ENABLED', 'NODE_TEST_CONTEXT']) delete env[key];
      const result = await runChild(process.execPath, runner.run, { cwd: dir, env });
      const output = `${result.stdout}\n${result.stderr}`;
      assert.equal(result.code, 0, output);
      const [oracle] = oracleLines(output, dir);
      assert.ok(oracle?.startsWith('call.test.'), `the runner maps its own stack to the test file: ${output}`);
      assertOrigins(capturedRows(dir), '/runner', oracle, output);
      if (runner.testCapture) {
        const holders = capturedUnits(dir).filter((capture) => (capture.sections.http ?? []).some((row) => new URL(row.url).pathname === '/runner'));
        assert.deepEqual(
          holders.map((capture) => [capture.type, capture.name, capture.status]),
          [['test', 'calls the upstream', 'passed']],
          `the call is in its test's capture, with no configuration of the runner: ${output}`,
        );
      }
      fs.rmSync(path.join(dir, '.probe'), { recursive: true, force: true });
    });
  }
});
