import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import { patchMethod } from '../util/patches';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase, nameWorkerCapture } from './TestCase';

/** What Probe reads of a Mocha test (Mocha 10 and 11): its title path, file and state. */
interface MochaTest {
  state?: string;
  /** Skipped once started: `this.skip()` in the test or in a beforeEach hook (Runnable#isPending). */
  isPending?: () => boolean;
  file?: string;
  titlePath?: () => string[];
  ctx?: { currentTest?: MochaTest };
}

type Callback = (...args: unknown[]) => unknown;

interface MochaRunner {
  test?: MochaTest;
  on?: (event: string, listener: Callback) => unknown;
}

interface RunnerClass {
  prototype: { hookDown: (name: string, fn: Callback) => unknown; hookUp: (name: string, fn: Callback) => unknown };
}

const VERSIONS = ['>=10 <12'];
const RUNNER_SOURCE = 'https://github.com/mochajs/mocha/blob/v11.7.5/lib/runner.js';
const WHY_HOOKS = `Mocha reports a test's begin before its beforeEach hooks and its end before its afterEach hooks (Runner#runTests); a test's capture holds the calls of those hooks too, so it opens as the beforeEach hooks start (Runner#hookDown) and ends when the afterEach hooks are done (Runner#hookUp) (${RUNNER_SOURCE})`;
/** The case of each Mocha test being run (a retry is a clone: a case of its own). */
const cases = new WeakMap<MochaTest, TestCase>();

/**
 * Mocha, serial and `--parallel` (each worker process of its pool runs files with a Runner of its own): its
 * `lib/runner.js`, required by the `mocha` command and by the pool's workers, is hooked. Mocha runs one test at a
 * time in a process, so a test's calls (its hooks' included) are the running test's without entering a context
 * (wrapping its function would add Probe's frames to the stack traces Mocha prints: it filters only its own).
 */
export const mochaRunner: TestRunnerSource = {
  name: 'mocha',
  isRunnerProcess: () => false,
  units: ({ config, logger }) => {
    if (!config.http) return null;
    return { name: 'mocha', instrumentations: [new MochaInstrumentation(logger)], enable: () => () => {} };
  },
};

class MochaInstrumentation extends InstrumentationBase {
  constructor(private readonly probeLogger: Logger) {
    super('probe-mocha', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition('mocha', VERSIONS, undefined, undefined, [
      new InstrumentationNodeModuleFile(
        'mocha/lib/runner.js',
        VERSIONS,
        (Runner: RunnerClass) => this.safely(() => hookRunner(Runner), Runner),
        (exports: unknown) => exports,
      ),
    ]);
  }

  private safely<T>(patch: () => void, exports: T): T {
    try {
      if (exports) patch();
    } catch (error) {
      this.probeLogger.warnOnce('mocha', 'could not record Mocha tests', error);
    }
    return exports;
  }
}

function hookRunner(Runner: RunnerClass): void {
  const proto = Runner?.prototype;
  if (typeof proto?.hookDown !== 'function' || typeof proto.hookUp !== 'function') return;
  patchMethod(
    proto,
    'hookDown',
    'mocha Runner.prototype.hookDown',
    WHY_HOOKS,
    (original) =>
      function (this: MochaRunner, name: string, fn: Callback) {
        try {
          if (name === 'beforeEach' && this.test && !cases.has(this.test)) begin(this, this.test);
        } catch {
          // never in the tests' way
        }
        return original.call(this, name, fn);
      },
  );
  patchMethod(
    proto,
    'hookUp',
    'mocha Runner.prototype.hookUp',
    WHY_HOOKS,
    (original) =>
      function (this: MochaRunner, name: string, fn: Callback) {
        const test = name === 'afterEach' ? this.test : undefined;
        const done =
          test && cases.has(test)
            ? function (this: unknown, ...args: unknown[]) {
                end(test);
                return fn.apply(this, args);
              }
            : fn;
        return original.call(this, name, done);
      },
  );
}

const watched = new WeakSet<object>();

function begin(runner: MochaRunner, test: MochaTest): void {
  const names = typeof test.titlePath === 'function' ? test.titlePath() : [];
  const open = TestCase.begin(names, test.file);
  if (!open) return;
  cases.set(test, open);
  nameWorkerCapture('mocha', test.file ?? '');
  // A run that stops inside a test (`--bail`, an uncaught error) still ends its case, with Mocha's verdict.
  if (!watched.has(runner) && typeof runner.on === 'function') {
    watched.add(runner);
    runner.on('end', () => {
      if (runner.test) end(runner.test);
    });
  }
}

/** Mocha's verdict on a test that ran: failed, skipped at run time (its report's `pending`), else passed. */
function verdict(test: MochaTest): boolean | 'skipped' {
  if (test.state === 'failed') return false;
  return typeof test.isPending === 'function' && test.isPending() ? 'skipped' : true;
}

function end(test: MochaTest): void {
  const open = cases.get(test);
  if (!open || open.ended) return;
  try {
    open.end(verdict(test));
  } catch {
    // never in the tests' way
  }
}
