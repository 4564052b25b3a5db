import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import { patchMethod } from '../runtime/patches';
import { alsoHookEsm } from '../lens/esmHook';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase, inTestContext } from './TestCase';

/** What Probe reads of node:test's TestContext (`fullName` and `passed` are there from Node 20.16). */
interface TestContextLike {
  name?: string;
  fullName?: string;
  passed?: boolean;
  after?: (fn: () => void) => void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- node:test's functions, called as the app calls them
type Declare = (...args: any[]) => any;

interface NodeTestExports {
  beforeEach?: (fn: (t: TestContextLike) => void) => void;
  test?: Declare;
  it?: Declare;
  afterEach?: Declare;
}

const HOOKED = Symbol.for('probe.node-test.hooked');

const WHY =
  "node:test runs a test's function in the AsyncResource made when the test was declared (lib/internal/test_runner/test.js: Test#run, runInAsyncScope), so tests running at once (`{ concurrency }`) share one context unless their functions enter their own (https://github.com/nodejs/node/blob/v22.12.0/lib/internal/test_runner/test.js)";

/** The test each node:test TestContext belongs to (the same object is passed to the test's hooks and function). */
const cases = new WeakMap<object, TestCase>();
const caseOfContext = (_self: unknown, args: unknown[]) => (typeof args[0] === 'object' && args[0] ? cases.get(args[0]) : undefined);

/** Whether this process runs `node --test` files: a child of the runner, or the runner with isolation off. */
function nodeTestMayRun(): boolean {
  return Boolean(process.env.NODE_TEST_CONTEXT) || process.execArgv.some((arg) => arg === '--test');
}

/**
 * node:test. First in start()'s list: node:test files are ESM often, and their `import 'node:test'` goes through
 * the loader only if it is listed before the loader starts (the fetch lens starts it).
 */
export const nodeTestRunner: TestRunnerSource = {
  name: 'node:test',
  // `node --test` itself, which runs each file in a child process of its own.
  isRunnerProcess: () => !process.env.NODE_TEST_CONTEXT && process.execArgv.includes('--test'),
  units: ({ config, logger }) => {
    if (!config.http) return null;
    if (nodeTestMayRun()) alsoHookEsm('node:test');
    return { name: 'node:test', instrumentations: [new NodeTestInstrumentation(logger)], enable: () => () => {} };
  },
};

/**
 * Makes each node:test test case a capture of type `test`. When the app loads `node:test` (a `require`, or an
 * `import` through the import-in-the-middle loader), Probe adds one root-level `beforeEach`: node:test runs it
 * before every test of the file, nested suites and subtests included, ahead of the app's own hooks. It opens
 * the test's unit and registers the test's `after`, which node:test runs after every `afterEach`, when
 * `t.passed` is final. Registering on load and not at start matters: a root hook starts node:test's harness,
 * which reports (on stdout) at exit, and `NODE_TEST_CONTEXT` reaches every process a test spawns.
 * `test`/`it`, `beforeEach`/`afterEach` and `t.test` are wrapped (through the ledger) so that the functions they
 * are given run in their test's context.
 */
class NodeTestInstrumentation extends InstrumentationBase {
  constructor(private readonly probeLogger: Logger) {
    super('probe-node-test', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition('node:test', ['*'], (exports: NodeTestExports) => {
      try {
        hookTests(exports, this.probeLogger);
      } catch (error) {
        this.probeLogger.warnOnce('node-test', 'could not record node:test tests', error);
      }
      return exports;
    });
  }
}

function hookTests(exports: NodeTestExports, logger: Logger): void {
  const holder = globalThis as { [HOOKED]?: boolean };
  if (holder[HOOKED] || typeof exports?.beforeEach !== 'function') return;
  holder[HOOKED] = true;
  exports.beforeEach((t) => {
    try {
      if (!t || typeof t.after !== 'function' || cases.has(t)) return;
      const test = TestCase.begin([String(t.fullName ?? t.name ?? 'test')]);
      if (!test) return;
      cases.set(t, test);
      wrapSubtests(t);
      t.after(() => {
        try {
          test.end(t.passed !== false);
        } catch (error) {
          logger.warnOnce('node-test-end', 'could not end a test capture', error);
        }
      });
    } catch (error) {
      logger.warnOnce('node-test-start', 'could not start a test capture', error);
    }
  });
  for (const key of ['test', 'it'] as const) patchMethod(exports, key, `node:test ${key}`, WHY, (original) => declaring(original!));
  for (const key of ['beforeEach', 'afterEach'] as const) {
    patchMethod(exports, key, `node:test ${key}`, WHY, (original) => withFunction(original as Declare, caseOfContext));
  }
}

let subtestsWrapped = false;

/** `t.test(name, fn)` (a subtest) runs `fn` in the subtest's context: TestContext's prototype, wrapped once. */
function wrapSubtests(t: object): void {
  if (subtestsWrapped) return;
  subtestsWrapped = true;
  const proto = Object.getPrototypeOf(t) as { test?: Declare };
  if (proto && typeof proto.test === 'function')
    patchMethod(proto, 'test', 'node:test TestContext.prototype.test', WHY, (original) => withFunction(original!, caseOfContext));
}

/** `test(name, options, fn)` and its `.only`: the function runs in its test's context. */
function declaring(original: Declare): Declare {
  const wrapped = withFunction(original, caseOfContext);
  Object.assign(wrapped, original);
  const only = (original as { only?: unknown }).only;
  if (typeof only === 'function') (wrapped as { only?: Declare }).only = withFunction(only as Declare, caseOfContext);
  return wrapped;
}

/** `original` whose last function argument runs in the context `caseOf` names. */
function withFunction(original: Declare, caseOf: (self: unknown, args: unknown[]) => TestCase | undefined): Declare {
  const wrapped = function (this: unknown, ...args: unknown[]) {
    try {
      for (let at = args.length - 1; at >= 0; at--) {
        if (typeof args[at] !== 'function') continue;
        args[at] = inTestContext(args[at] as Declare, caseOf);
        break;
      }
    } catch {
      // the app's function as it was
    }
    return original.apply(this, args);
  };
  Object.defineProperty(wrapped, 'length', { value: original.length });
  Object.defineProperty(wrapped, 'name', { value: original.name });
  return wrapped;
}
