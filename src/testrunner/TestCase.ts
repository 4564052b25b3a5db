import type { AsyncResource } from 'node:async_hooks';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Recorder } from '../runtime/Recorder';
import type { Unit } from '../runtime/Unit';
import { currentRuntime } from '../runtime/state';

/** One test case being recorded: its unit, opened by `begin`, ended once by `end`. */
export class TestCase {
  #ended = false;

  private constructor(
    private readonly recorder: Recorder,
    readonly unit: Unit,
  ) {}

  /**
   * A test starts: `names` is its path (suites, then its own name), each name as the runner gives it (the capture's
   * name joins them with ` > `); `file` the test file as the runner names it (absolute or relative to the working
   * folder), kept relative to the app root as `meta.test_file`. Null when Probe is not running.
   */
  static begin(names: readonly string[], file?: string | null): TestCase | null {
    const recorder = currentRuntime()?.recorder;
    if (!recorder) return null;
    const unit = recorder.beginTest(names.filter(Boolean).map(String));
    unit.testFile = testFileOf(recorder.config.root, file);
    return new TestCase(recorder, unit);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Runs the test's own code in its context (see TestStack). */
  run<T>(fn: () => T): T {
    return this.#ended ? fn() : this.recorder.runInTest(this.unit, fn);
  }

  /**
   * From here on, the current async function's context is the test's (see TestStack.enter): for a runner that
   * runs a whole test in one async function and calls Probe synchronously at its start.
   */
  enter(): void {
    if (!this.#ended) this.recorder.enterTest(this.unit);
  }

  /** The runner's own work (a suite's hooks) from here on in this async function: no test's calls. */
  static leave(): void {
    currentRuntime()?.recorder.enterTest(null);
  }

  /**
   * What `resource` (a runner's AsyncResource that calls the test's code) runs from now on runs in the test's
   * context; once the test ended, in no test's. False when the context could not be set (see TestStack).
   */
  bind(resource: AsyncResource): boolean {
    return this.recorder.bindTestResource(resource, this.#ended ? null : this.unit);
  }

  /** What `resource` runs from now on belongs to no test (a suite's hook), whatever tests run beside it. */
  static unbind(resource: AsyncResource): boolean {
    return currentRuntime()?.recorder.bindTestResource(resource, null) ?? false;
  }

  /** Runs `fn` in no test's context (a suite's hook): its calls go to the process, whatever tests run beside it. */
  static outside<T>(fn: () => T): T {
    const recorder = currentRuntime()?.recorder;
    return recorder ? recorder.runInTest(null, fn) : fn();
  }

  /**
   * The test ended, after its hooks, with the runner's verdict: passed, failed, or `'skipped'` for a test the
   * runner started and then reported skipped (skipped from inside the test, `ctx.skip()` / `t.skip()`).
   */
  end(passed: boolean | 'skipped'): void {
    if (this.#ended) return;
    this.#ended = true;
    this.recorder.endTest(this.unit, passed);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function a runner calls
type AnyFunction = (this: any, ...args: any[]) => any;

/**
 * `fn` run in the context of the test `caseOf` names for the call (`this` and the arguments the runner passes),
 * in no test's when it answers null (a suite's hook), or as it is when it answers undefined. Same `length` and
 * name: runners read a function's length to know whether it takes a `done` callback. A generator function (some
 * runners treat those apart) is left as it is.
 */
export function inTestContext<F extends AnyFunction>(fn: F, caseOf: (self: unknown, args: unknown[]) => TestCase | null | undefined): F {
  if (typeof fn !== 'function' || /^(async\s*)?function\s*\*/.test(Function.prototype.toString.call(fn))) return fn;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    let test: TestCase | null | undefined;
    try {
      test = caseOf(this, args);
    } catch {
      test = undefined;
    }
    const call = () => fn.apply(this, args) as unknown;
    return test === undefined ? call() : test === null ? TestCase.outside(call) : test.run(call);
  };
  Object.defineProperty(wrapped, 'length', { value: fn.length });
  Object.defineProperty(wrapped, 'name', { value: fn.name });
  return wrapped as unknown as F;
}

/** The test file relative to the app root (`/` separated), or null for none or one outside the root. */
function testFileOf(root: string, file: string | null | undefined): string | null {
  if (typeof file !== 'string' || !file) return null;
  const local = file.startsWith('file://') ? safeFileUrl(file) : file;
  if (!local) return null;
  const relative = path.relative(root, path.resolve(local));
  if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join('/');
}

function safeFileUrl(url: string): string | null {
  try {
    return fileURLToPath(url);
  } catch {
    return null;
  }
}

const files: string[] = [];
/** Test files named in a runner worker's command capture; the rest are counted. */
const NAMED_FILES = 3;

/**
 * A runner's worker process (started with an IPC channel: jest-worker, Mocha's parallel pool) or worker thread
 * (AVA's) is named after the test files it ran, `jest a.test.js b.test.js`: its own script (`jest-worker/build/workers/processChild.js`,
 * `mocha/lib/nodejs/worker.js`) says nothing. A runner running the tests in its own process keeps the command as
 * typed.
 */
export function nameWorkerCapture(runner: string, testPath: string): void {
  const runtime = currentRuntime();
  const main = runtime?.recorder.processUnit;
  if (!runtime || !main || main.closed || (isMainThread && !process.channel) || !testPath) return;
  const file = path.relative(runtime.recorder.config.root, testPath) || testPath;
  if (!files.includes(file)) files.push(file);
  const more = files.length - NAMED_FILES;
  main.name = `${runner} ${files.slice(0, NAMED_FILES).join(' ')}${more > 0 ? ` (+${more} more)` : ''}`;
}
