import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import { alsoHookEsm } from '../lens/esmHook';
import type { Logger } from '../util/logger';
import { patchMethod } from '../util/patches';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase, nameWorkerCapture } from './TestCase';

/** What Probe reads of AVA's task (a declared test) and of its Runnable (a test or hook being run). */
interface AvaTask {
  title?: unknown;
}
interface AvaRunnable {
  isHook?: boolean;
  contextRef?: object;
}
interface AvaResult {
  passed?: boolean;
}
type Method = (this: AvaRunner, ...args: unknown[]) => unknown;
interface AvaRunner {
  file?: string;
}
interface RunnerClass {
  prototype: { runTest?: Method; runSingle?: Method };
}

/** AVA 6 to 8 keep their runner (the class each worker makes, one per test file) in this module. */
const VERSIONS = ['>=6 <9'];
const RUNNER_MODULE = 'lib/runner.js';
const RUNNER_SOURCE = 'https://github.com/avajs/ava/blob/v6.4.1/lib/runner.js';
const WHY_TEST = `AVA runs each test with its beforeEach and afterEach hooks in one async method of its runner, Runner#runTest(task, contextRef), and the tests of a file at once (Promise.all over the concurrent ones): the test's capture opens there and the whole method runs in the test's async context, so tests running side by side keep their own calls (${RUNNER_SOURCE})`;
const WHY_VERDICT = `Runner#runSingle(runnable) resolves with the test's result, \`passed\` already turned for a \`test.failing\`: AVA reports the test passed or failed from it (its stateChange 'test-passed' / 'test-failed'), and so does the test's capture (${RUNNER_SOURCE})`;

/** The case of each test being run, by the context AVA hands its hooks and its test (one copy per test). */
const cases = new WeakMap<object, TestCase>();
/** AVA's verdict on each test whose function ran, by the same key. */
const verdicts = new WeakMap<object, boolean>();

/**
 * AVA: each test is a capture of type `test`, with no configuration. AVA runs every test file in a worker of its
 * own (a worker thread by default, a child process with `--no-worker-threads`), which makes one runner for the
 * file; the runner's class, in the AVA package the project has installed, is hooked in those workers (through the
 * ESM loader: AVA is ESM). The process that runs `ava` itself runs no test and loads no runner.
 */
export const avaRunner: TestRunnerSource = {
  name: 'ava',
  isRunnerProcess: () => false,
  units: ({ config, logger }) => {
    // A worker thread, or a process started with an IPC channel: where AVA runs a file's tests.
    if (!config.http || (isMainThread && !process.channel)) return null;
    const file = runnerModule();
    if (!file) return null;
    alsoHookEsm(pathToFileURL(file).href, { imported: true, inThreads: true });
    return { name: 'ava', instrumentations: [new AvaInstrumentation(logger)], enable: () => () => {} };
  },
};

/** The runner module of the AVA the project has installed (found from the working folder, as AVA's CLI is), or null. */
function runnerModule(): string | null {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', 'ava', RUNNER_MODULE);
    if (existsSync(file)) {
      try {
        return realpathSync(file);
      } catch {
        return null;
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

class AvaInstrumentation extends InstrumentationBase {
  constructor(private readonly probeLogger: Logger) {
    super('probe-ava', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition('ava', VERSIONS, undefined, undefined, [
      new InstrumentationNodeModuleFile(
        `ava/${RUNNER_MODULE}`,
        VERSIONS,
        (exports: { default?: RunnerClass }) => {
          try {
            hookRunner(exports?.default);
          } catch (error) {
            this.probeLogger.warnOnce('ava', 'could not record AVA tests', error);
          }
          return exports;
        },
        (exports: unknown) => exports,
      ),
    ]);
  }
}

function hookRunner(Runner: RunnerClass | undefined): void {
  const proto = Runner?.prototype;
  if (!proto || typeof proto.runTest !== 'function' || typeof proto.runSingle !== 'function') return;
  patchMethod(
    proto,
    'runTest',
    'ava Runner.prototype.runTest',
    WHY_TEST,
    (original) =>
      function (this: AvaRunner, ...args: unknown[]) {
        let test: TestCase | null = null;
        const key = args[1];
        try {
          test = begin(this, args[0] as AvaTask, key);
        } catch {
          // never in the tests' way
        }
        if (!test || !key || typeof key !== 'object') return original!.apply(this, args);
        const running = test.run(() => original!.apply(this, args));
        const end = () => {
          try {
            // No verdict: a beforeEach hook failed and the test's function never ran.
            test.end(verdicts.get(key) ?? false);
          } catch {
            // never in the tests' way
          }
        };
        if (running && typeof (running as Promise<unknown>).then === 'function') (running as Promise<unknown>).then(end, end);
        else end();
        return running;
      },
  );
  patchMethod(
    proto,
    'runSingle',
    'ava Runner.prototype.runSingle',
    WHY_VERDICT,
    (original) =>
      function (this: AvaRunner, ...args: unknown[]) {
        const runnable = args[0] as AvaRunnable | undefined;
        const result = original!.apply(this, args);
        try {
          const key = runnable?.contextRef;
          if (runnable && !runnable.isHook && key && cases.has(key) && result && typeof (result as Promise<AvaResult>).then === 'function')
            (result as Promise<AvaResult>).then(
              (outcome) => verdicts.set(key, outcome?.passed === true),
              () => verdicts.set(key, false),
            );
        } catch {
          // never in the tests' way
        }
        return result;
      },
  );
}

function begin(runner: AvaRunner, task: AvaTask | undefined, key: unknown): TestCase | null {
  if (!task || !key || typeof key !== 'object' || cases.has(key)) return null;
  const test = TestCase.begin([String(task.title ?? 'test')], typeof runner.file === 'string' ? runner.file : null);
  if (!test) return null;
  cases.set(key, test);
  // A child-process worker (`--no-worker-threads`) is named after its test file, as a thread is.
  if (typeof runner.file === 'string') nameWorkerCapture('ava', runner.file);
  return test;
}
