import path from 'node:path';
import { currentRuntime } from '../runtime/state';
import { patchMethod } from '../util/patches';
import { TestCase } from './TestCase';

/** What Probe reads of a Vitest task (Vitest 3 and 4): its kind, name, suites up to the file, mode and result. */
export interface VitestTask {
  type?: string;
  name?: string;
  mode?: string;
  filepath?: string;
  suite?: VitestTask;
  file?: VitestTask;
  tasks?: VitestTask[];
  result?: { state?: string };
}

type Hook = (this: unknown, ...args: unknown[]) => unknown;

/** The hooks of Vitest's runner class (`VitestTestRunner`, the `vitest/runners` export custom runners extend). */
interface RunnerClass {
  prototype: { onBeforeRunTask?: Hook; onBeforeTryTask?: Hook; onBeforeRunSuite?: Hook; onAfterRunSuite?: Hook };
}

const RUNNER_SOURCE = 'https://github.com/vitest-dev/vitest/blob/v3.2.4/packages/runner/src/run.ts';
const WHY_BEGIN = `Vitest runs each test, its beforeEach/afterEach hooks, fixtures and onTestFinished callbacks inside one async function (runTest) whose first step is the runner's onBeforeRunTask: the test's capture opens there and its async context is entered before runTest's first await, so concurrent tests each keep their own calls (${RUNNER_SOURCE})`;
const WHY_SUITE = `a suite's beforeAll/afterAll hooks run in runSuite, which starts with the runner's onBeforeRunSuite: its calls belong to no test; onAfterRunSuite ends a test Vitest skipped at run time, which returns before onAfterRunTask (${RUNNER_SOURCE})`;
const WHY_END = `runTest's last step is the runner's onAfterRunTask, after the test's afterEach hooks and cleanups, when its result is final; Vitest sets it on the runner instance (resolveTestRunner wraps it), so it is hooked there (https://github.com/vitest-dev/vitest/blob/v3.2.4/packages/vitest/src/runtime/runners/index.ts)`;

const WHY_RETRY = `runTest runs a test's attempts (\`retry\`, \`repeats\`) in one call, each starting with the runner's onBeforeTryTask: a later attempt ends the earlier one's capture and opens its own, so each attempt keeps its own calls and the last one is the test's (${RUNNER_SOURCE})`;

/** The case of each test being run, by its task. */
const cases = new WeakMap<object, TestCase>();
const hookedClasses = new WeakSet<object>();
const hookedRunners = new WeakSet<object>();

/**
 * Makes each Vitest test a capture of type `test` through the hooks of Vitest's runner class, the ones a custom
 * runner overrides: `onBeforeRunTask` opens the test's capture and enters its context, the runner instance's
 * `onAfterRunTask` ends it with Vitest's verdict. Called from the `probe/vitest` setup file, which Vitest runs
 * in the realm the tests run in (a vm context for the vm pools), with that realm's `vitest/runners`.
 * Returns whether the class had the hooks (else the caller falls back to `recordVitestTests`). The patches are weak
 * in the ledger: a vm pool evaluates the class, and makes a runner, in a realm of its own per test file.
 */
export function recordVitestRunner(runners: { VitestTestRunner?: unknown }): boolean {
  const Runner = runners?.VitestTestRunner as RunnerClass | undefined;
  const proto = Runner?.prototype;
  if (!proto || typeof proto.onBeforeRunTask !== 'function' || typeof proto.onBeforeRunSuite !== 'function') return false;
  if (hookedClasses.has(proto)) return true;
  hookedClasses.add(proto);
  patchMethod(
    proto,
    'onBeforeRunTask',
    'vitest VitestTestRunner.prototype.onBeforeRunTask',
    WHY_BEGIN,
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        // First the runner's own (it marks the test skipped when the run is cancelled), then the test's context
        // for the rest of runTest: runTest awaits what this returns.
        const result = original!.apply(this, args);
        try {
          begin(this, args[0] as VitestTask);
        } catch {
          // never in the tests' way
        }
        return result;
      },
    { weak: true },
  );
  if (typeof proto.onBeforeTryTask === 'function')
    patchMethod(
      proto,
      'onBeforeTryTask',
      'vitest VitestTestRunner.prototype.onBeforeTryTask',
      WHY_RETRY,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const result = original!.apply(this, args);
          try {
            nextAttempt(this, args[0] as VitestTask, args[1] as { retry?: number; repeats?: number } | undefined);
          } catch {
            // never in the tests' way
          }
          return result;
        },
      { weak: true },
    );
  patchMethod(
    proto,
    'onBeforeRunSuite',
    'vitest VitestTestRunner.prototype.onBeforeRunSuite',
    WHY_SUITE,
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const result = original!.apply(this, args);
        try {
          TestCase.leave();
          const suite = args[0] as VitestTask | undefined;
          if (suite?.filepath) nameFileCapture(suite.filepath);
        } catch {
          // never in the tests' way
        }
        return result;
      },
    { weak: true },
  );
  patchMethod(
    proto,
    'onAfterRunSuite',
    'vitest VitestTestRunner.prototype.onAfterRunSuite',
    WHY_SUITE,
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        try {
          for (const task of (args[0] as VitestTask | undefined)?.tasks ?? []) end(task);
        } catch {
          // never in the tests' way
        }
        return original!.apply(this, args);
      },
    { weak: true },
  );
  return true;
}

function begin(runner: unknown, test: VitestTask | undefined): void {
  if (!test || test.type !== 'test' || (test.mode !== 'run' && test.mode !== 'queued') || cases.has(test)) return;
  const open = TestCase.begin(namePath(test), fileOf(test));
  if (!open) return;
  cases.set(test, open);
  open.enter();
  hookEnd(runner);
}

/** A retry or repetition of a test: the attempt before it ended (it failed, or is repeated), this one is a capture of its own. */
function nextAttempt(runner: unknown, test: VitestTask | undefined, attempt: { retry?: number; repeats?: number } | undefined): void {
  if (!test || !attempt || !((attempt.retry ?? 0) > 0 || (attempt.repeats ?? 0) > 0)) return;
  const open = cases.get(test);
  if (!open) return;
  cases.delete(test);
  open.end(test.result?.state === 'fail' ? false : verdict(test));
  begin(runner, test);
}

function hookEnd(runner: unknown): void {
  const instance = runner as { onAfterRunTask?: Hook } | null;
  if (!instance || typeof instance !== 'object' || hookedRunners.has(instance)) return;
  hookedRunners.add(instance);
  patchMethod(
    instance,
    'onAfterRunTask',
    'vitest runner.onAfterRunTask',
    WHY_END,
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        try {
          end(args[0] as VitestTask);
        } catch {
          // never in the tests' way
        }
        return original!.apply(this, args);
      },
    { weak: true },
  );
}

function end(test: VitestTask | undefined): void {
  const open = test ? cases.get(test) : undefined;
  if (!test || !open) return;
  cases.delete(test);
  open.end(verdict(test));
}

/** Vitest's verdict on a test it ran: a test skipped from inside (`ctx.skip()`) ends with state `skip`. */
function verdict(test: VitestTask): boolean | 'skipped' {
  const state = test.result?.state;
  return state === 'skip' ? 'skipped' : state !== 'fail';
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
 * Makes each Vitest test a capture of type `test` through hooks of the test file (where the runner class is
 * not at hand: Vitest 4). Vitest runs a setup file's hooks before the test file's own, so this `beforeEach` opens
 * the test's unit before any hook of the file calls out; `onTestFinished` callbacks run after every `afterEach`
 * and cleanup, last-registered first, so this one (registered before the test body runs) ends the unit last,
 * when the result is final. Calls outside tests (`beforeAll`, module top level) stay in the worker's command
 * capture, named after the test file.
 */
export function recordVitestTests(hooks: VitestHooks): void {
  // Hooks without declared parameters: Vitest 4 reads a hook's first parameter as a fixture list (it must be
  // destructured), and passes the file's suite first in Vitest 3, second in Vitest 4.
  hooks.beforeAll(function () {
    try {
      const file = [...arguments].find((arg): arg is VitestTask => Boolean((arg as VitestTask | undefined)?.filepath));
      if (file?.filepath) nameFileCapture(file.filepath);
    } catch {
      // never in the tests' way
    }
  });
  hooks.beforeEach(function () {
    try {
      const context = arguments[0] as VitestTestContext | undefined;
      const task = context?.task;
      if (!context || !task || typeof context.onTestFinished !== 'function') return;
      const test = TestCase.begin(namePath(task), fileOf(task));
      if (!test) return;
      context.onTestFinished(() => {
        try {
          test.end(verdict(task));
        } catch {
          // never in the tests' way
        }
      });
    } catch {
      // never in the tests' way
    }
  });
}

/** The worker's command capture is named after the test file it runs (its own script says nothing). */
function nameFileCapture(filepath: string): void {
  const runtime = currentRuntime();
  const main = runtime?.recorder.processUnit;
  if (runtime && main && !main.closed) main.name = `vitest ${path.relative(runtime.recorder.config.root, filepath)}`;
}

/** The names of the test's suites (not the file) and its own. */
function namePath(task: VitestTask): string[] {
  const names = [String(task.name ?? 'test')];
  for (let suite = task.suite; suite && !suite.filepath; suite = suite.suite) {
    if (suite.name) names.unshift(suite.name);
  }
  return names;
}

/** The test's file: its `file` task's path, else the suite that holds one. */
function fileOf(task: VitestTask): string | null {
  if (task.file?.filepath) return task.file.filepath;
  for (let suite = task.suite; suite; suite = suite.suite) if (suite.filepath) return suite.filepath;
  return null;
}
