import path from 'node:path';
import { currentRuntime } from '../runtime/state';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase } from './TestCase';

/** The entry scripts of Vitest's own processes: the runner itself and its pools' workers before a file runs. */
const RUNNER_ENTRIES = [
  /[\\/]vitest[\\/]vitest\.mjs$/,
  /[\\/]\.bin[\\/]vitest$/,
  /[\\/]tinypool[\\/]dist[\\/]entry[\\/]/,
  /[\\/]vitest[\\/]dist[\\/]workers[\\/]/,
];

/**
 * Vitest: its tests are recorded by the `probe/vitest` setup file (`recordVitestTests`), which runs in the
 * worker as the test files do (Vitest evaluates them through its own module runner, out of reach of require and
 * import hooks); the source only names Vitest's own processes.
 */
export const vitestRunner: TestRunnerSource = {
  name: 'vitest',
  isRunnerProcess: () => RUNNER_ENTRIES.some((entry) => entry.test(process.argv[1] ?? '')),
  units: () => null,
};

/** What Probe reads of a Vitest task: its name, its suites up to the file, and its result. */
interface VitestTask {
  name?: string;
  filepath?: string;
  suite?: VitestTask;
  result?: { state?: string };
}

interface VitestTestContext {
  task?: VitestTask;
  onTestFinished?: (fn: () => void) => void;
}

/** The part of `vitest`'s exports Probe uses (Vitest 3 and 4). */
export interface VitestHooks {
  beforeAll: (fn: (...args: unknown[]) => void) => void;
  beforeEach: (fn: (...args: unknown[]) => void) => void;
}

/**
 * Makes each Vitest test a capture of type `test` (the `probe/vitest` setup file calls this). Vitest runs a setup
 * file's hooks before the test file's own, so this `beforeEach` opens the test's unit before any hook of the
 * file calls out; `onTestFinished` callbacks run after every `afterEach` and cleanup, last-registered first, so
 * this one (registered before the test body runs) ends the unit last, when the result is final. Calls outside
 * tests (`beforeAll`, module top level) stay in the worker's command capture, named after the test file.
 */
export function recordVitestTests(hooks: VitestHooks): void {
  // Hooks without declared parameters: Vitest 4 reads a hook's first parameter as a fixture list (it must be
  // destructured), and passes the file's suite first in Vitest 3, second in Vitest 4.
  hooks.beforeAll(function () {
    try {
      const file = [...arguments].find((arg): arg is VitestTask => Boolean((arg as VitestTask | undefined)?.filepath));
      const runtime = currentRuntime();
      const main = runtime?.recorder.processUnit;
      if (runtime && main && !main.closed && file?.filepath) main.name = `vitest ${path.relative(runtime.recorder.config.root, file.filepath)}`;
    } catch {
      // never in the tests' way
    }
  });
  hooks.beforeEach(function () {
    try {
      const context = arguments[0] as VitestTestContext | undefined;
      const task = context?.task;
      if (!context || !task || typeof context.onTestFinished !== 'function') return;
      const test = TestCase.begin(namePath(task));
      if (!test) return;
      context.onTestFinished(() => {
        try {
          test.end(task.result?.state !== 'fail');
        } catch {
          // never in the tests' way
        }
      });
    } catch {
      // never in the tests' way
    }
  });
}

/** The names of the test's suites (not the file) and its own. */
function namePath(task: VitestTask): string[] {
  const names = [String(task.name ?? 'test')];
  for (let suite = task.suite; suite && !suite.filepath; suite = suite.suite) {
    if (suite.name) names.unshift(suite.name);
  }
  return names;
}
