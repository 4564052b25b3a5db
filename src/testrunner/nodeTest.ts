import { executionAsyncResource } from 'node:async_hooks';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import { patchMethod } from '../util/patches';
import { alsoHookEsm } from '../lens/esmHook';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase } from './TestCase';
import { bindNodeTestContexts } from './nodeTestContext';

/** What Probe reads of node:test's TestContext (`fullName` and `passed` are there from Node 20.16). */
interface TestContextLike {
  name?: string;
  fullName?: string;
  /** The test's file (Node 22.6, 20.16). */
  filePath?: string;
  passed?: boolean;
  signal?: object;
  after?: (fn: () => void) => void;
}

interface NodeTestExports {
  beforeEach?: (fn: (t: TestContextLike) => void) => void;
}

const HOOKED = Symbol.for('probe.node-test.hooked');

const WHY_SKIP =
  "a test that calls t.skip() goes on running and node:test reports it skipped (TAP's # SKIP); TestContext has no public field that says so, so its skip() is watched (https://github.com/nodejs/node/blob/v24.11.0/lib/internal/test_runner/test.js)";

/** The AbortSignals of the tests that skipped themselves at run time (`t.skip()`). */
const skippedSignals = new WeakSet<object>();

/**
 * Watches `TestContext.prototype.skip` (once; the hook's context is the one the test's function gets, and shares
 * its test's signal) so a test skipped from inside ends `skipped`, as node:test reports it.
 */
function hookSkip(t: TestContextLike): void {
  const proto = Object.getPrototypeOf(t) as { skip?: (this: TestContextLike, ...args: unknown[]) => unknown } | null;
  if (!proto || typeof proto.skip !== 'function' || hookedSkips.has(proto)) return;
  hookedSkips.add(proto);
  patchMethod(
    proto,
    'skip',
    'node:test TestContext.prototype.skip',
    WHY_SKIP,
    (original) =>
      function (this: TestContextLike, ...args: unknown[]) {
        try {
          if (this?.signal && typeof this.signal === 'object') skippedSignals.add(this.signal);
        } catch {
          // never in the tests' way
        }
        return original!.apply(this, args);
      },
  );
}
const hookedSkips = new WeakSet<object>();

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
 * The module's exports are returned as they are: node:test takes a test's reported `location` from the caller of
 * `test()`/`it()`, and prints a failure's whole stack. The test's function and its hooks run in the test's own
 * context through node:test's AsyncResources (see nodeTestContext), so tests running at once (`{ concurrency }`,
 * subtests) each keep their own calls, with no frame of Probe's in what node:test reports.
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
  // Each test's case by the test's AbortSignal: node:test's Test and the TestContext it hands the test's code share it.
  const cases = new WeakMap<object, TestCase>();
  const caseOf = (signal: unknown) => (signal !== null && typeof signal === 'object' ? cases.get(signal) : undefined);
  let bound = false;
  exports.beforeEach((t) => {
    try {
      if (!t || typeof t.after !== 'function') return;
      if (!bound) {
        bound = true;
        // Before any test's own hooks and function: this hook is the first of every test's.
        if (!bindNodeTestContexts(caseOf))
          logger.debug("node:test's tests run in no context of their own: calls of tests running at once go to the process's capture");
      }
      const test = TestCase.begin(namePath(t), testFile(t));
      if (!test) return;
      if (t.signal && typeof t.signal === 'object') cases.set(t.signal, test);
      hookSkip(t);
      t.after(() => {
        try {
          test.end(t.passed === false ? false : skippedSignals.has(t.signal as object) ? 'skipped' : true);
        } catch (error) {
          logger.warnOnce('node-test-end', 'could not end a test capture', error);
        }
      });
    } catch (error) {
      logger.warnOnce('node-test-start', 'could not start a test capture', error);
    }
  });
}

/**
 * The test's file: its context's `filePath` (Node 22.6, 20.16), else the script the process runs (node:test runs
 * each file in a process of its own, and `node file.test.js` runs the one).
 */
function testFile(t: TestContextLike): string | null {
  if (typeof t.filePath === 'string' && t.filePath) return t.filePath;
  return process.argv[1] ?? null;
}

/** What Probe reads of node:test's Test (the running hook's `parentTest`, subtests, parents up to the root). */
interface NodeTestNode {
  name?: unknown;
  parent?: NodeTestNode | null;
  signal?: unknown;
  finished?: boolean;
  subtests?: NodeTestNode[];
}

/**
 * The test's name path, its suites' names first, as node:test gives them: the running test is found by its signal
 * among the unfinished tests under the hook's own (Probe's `beforeEach` is the root's), and its parents read up to
 * the root (left out), when they make the `fullName` node:test reports (joined with ` > `); else that full name as
 * one name.
 */
function namePath(t: { name?: unknown; fullName?: unknown; signal?: unknown }): string[] {
  const fullName = String(t.fullName ?? t.name ?? 'test');
  try {
    const hook = executionAsyncResource() as { parentTest?: NodeTestNode | null };
    const names: string[] = [];
    const found = runningTest(hook?.parentTest, t.signal);
    for (let test = found; test && test.parent && names.length < 1000; test = test.parent) names.unshift(String(test.name));
    // node:test before `fullName` (Node 20.15): the test's own name ends the path.
    const agrees = t.fullName === undefined ? names[names.length - 1] === fullName : names.join(' > ') === fullName;
    if (names.length && agrees) return names;
  } catch {
    // node:test's internals as they are: the full name
  }
  return [fullName];
}

/** The test with this signal among the unfinished tests under `from` (a running test's suites are unfinished too). */
function runningTest(from: NodeTestNode | null | undefined, signal: unknown): NodeTestNode | null {
  if (!from || !signal) return null;
  const pending: NodeTestNode[] = [from];
  for (let seen = 0; pending.length > 0 && seen < 100_000; seen++) {
    const test = pending.pop()!;
    if (test.signal === signal && test !== from) return test;
    if (!Array.isArray(test.subtests)) continue;
    for (const sub of test.subtests) if (sub && !sub.finished) pending.push(sub);
  }
  return null;
}
