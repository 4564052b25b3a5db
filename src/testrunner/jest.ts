import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase, inTestContext, nameWorkerCapture } from './TestCase';

/** What Probe reads of a jest-circus test: its name, its describe blocks up to the root, its function and errors. */
interface CircusBlock {
  name?: string;
  parent?: CircusBlock;
  type?: string;
  children?: CircusBlock[];
}

interface CircusTest extends CircusBlock {
  errors?: unknown[];
  fn?: (...args: unknown[]) => unknown;
}

/** A jest-circus event as a test environment's `handleTestEvent` receives it (Jest 29 and 30). */
export interface CircusEvent {
  name: string;
  test?: CircusTest;
  fn?: unknown;
  hookType?: string;
}

/** A hook as jest-circus keeps it in its describe block. */
interface CircusHook {
  fn?: (...args: unknown[]) => unknown;
  type?: string;
}

interface CircusState {
  currentDescribeBlock?: CircusBlock & { hooks?: CircusHook[] };
}

/** What Probe uses of a Jest test environment (jest-environment-node, jest-environment-jsdom, any custom one). */
export interface JestEnvironmentLike {
  getVmContext(): object | null;
  handleTestEvent?(event: CircusEvent, state: unknown): unknown;
}

/** The name jest-circus gives the describe block that holds a file's top-level tests. */
const ROOT_BLOCK = 'ROOT_DESCRIBE_BLOCK';
const OBSERVED = Symbol('probe.jest.observed');

/**
 * Jest (jest-circus, its runner since Jest 27): every test environment is observed where jest-circus is handed it,
 * with no configuration: jest-runner calls the runner's adapter (`jest-circus/runner`, loaded with Node's require
 * in the process that runs the file: a jest-worker child, or `jest` itself with `--runInBand`) with the
 * environment it made, before jest-circus registers the environment's `handleTestEvent`. `probe/jest` remains a
 * way to name the environment.
 */
export const jestRunner: TestRunnerSource = {
  name: 'jest',
  isRunnerProcess: () => false,
  units: ({ config, logger }) => {
    if (!config.http) return null;
    return { name: 'jest', instrumentations: [new JestCircusInstrumentation(logger)], enable: () => () => {} };
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- jest-circus's adapter, called as jest-runner calls it
type Adapter = (...args: any[]) => any;

class JestCircusInstrumentation extends InstrumentationBase {
  constructor(private readonly probeLogger: Logger) {
    super('probe-jest-circus', '0.1.0', {});
  }

  protected init() {
    const versions = ['>=29 <31'];
    // Jest 29's adapter is its own file (`jest-circus/runner` re-exports it); Jest 30 bundles it into build/runner.js.
    const files = ['jest-circus/build/legacy-code-todo-rewrite/jestAdapter.js', 'jest-circus/build/runner.js'].map(
      (file) =>
        new InstrumentationNodeModuleFile(
          file,
          versions,
          (exports: { default?: Adapter }) => this.wrapAdapter(exports),
          (exports: unknown) => exports,
        ),
    );
    return new InstrumentationNodeModuleDefinition('jest-circus', versions, undefined, undefined, files);
  }

  /**
   * The adapter's `default` export, wrapped in place: a plain property of a module object that only jest-runner
   * reads (a per-module wrap, not a process-wide one), `(globalConfig, config, environment, runtime, testPath, …)`.
   */
  private wrapAdapter(exports: { default?: Adapter }): unknown {
    const original = exports?.default;
    if (typeof original !== 'function') return exports;
    const logger = this.probeLogger;
    exports.default = function (this: unknown, ...args: unknown[]) {
      try {
        const environment = args[2] as JestEnvironmentLike | undefined;
        if (environment && typeof environment.getVmContext === 'function') observeJestEnvironment(environment, String(args[4] ?? ''));
      } catch (error) {
        logger.warnOnce('jest-adapter', 'could not record Jest tests', error);
      }
      return original.apply(this, args);
    };
    return exports;
  }
}

/**
 * Hands the environment's jest-circus events to Probe (an own `handleTestEvent` calling the environment's own
 * after Probe's) and watches the code Jest evaluates in its context for source maps. Once per environment.
 */
export function observeJestEnvironment(environment: JestEnvironmentLike, testPath: string): void {
  const marked = environment as JestEnvironmentLike & { [OBSERVED]?: boolean };
  if (marked[OBSERVED]) return;
  marked[OBSERVED] = true;
  const tests = new JestTests(testPath);
  const own = environment.handleTestEvent;
  environment.handleTestEvent = function (this: JestEnvironmentLike, event: CircusEvent, state: unknown) {
    try {
      tests.handle(event, state as CircusState | undefined);
    } catch {
      // never in the tests' way
    }
    return own?.call(this, event, state);
  };
}

/**
 * Makes each Jest test case a capture of type `test`, from the jest-circus events its environment receives
 * (awaited by circus before it goes on). `add_test` hands over the test circus just made: its function is wrapped
 * to run in the test's context. `test_started` comes after circus decided the test runs (not skipped, not a todo)
 * and before its `beforeEach` hooks; `test_done` after its `afterEach` hooks, with `test.errors` final (a
 * `test.failing` case has its errors swapped by then). `add_hook` hands over a hook: a `beforeEach`/`afterEach`
 * runs in the context of the test whose turn it is (circus runs a test's hooks between its `test_started` and
 * `test_done`, one test's at a time); a `beforeAll`/`afterAll` runs in no test's context.
 *
 * Concurrent tests (`test.concurrent`, `.each` included): Jest 29 starts every concurrent test's function when the
 * file's tests start, ahead of its turn (its capture opens then, as its function runs in its context), and runs
 * its `beforeEach`/`afterEach` hooks later, in its turn; Jest 30 runs each concurrent test whole, side by side
 * with the others, and runs no `beforeEach`/`afterEach` for them. Either way each test keeps its own calls and
 * its hooks'. Calls outside tests (`beforeAll`, the module's top level) stay in the process's command capture,
 * which a Jest worker names after the files it ran.
 */
export class JestTests {
  private readonly open = new Map<CircusTest, TestCase>();
  /** Tests between `test_started` and `test_done`: one, unless concurrent tests run whole side by side (Jest 30). */
  private readonly inTurn = new Set<CircusTest>();

  constructor(private readonly testPath: string) {
    nameWorkerCapture('jest', testPath);
  }

  handle(event: CircusEvent, state?: CircusState): void {
    const test = event.name === 'add_test' ? addedTest(event, state) : event.test;
    if (event.name === 'add_test' && test && typeof test.fn === 'function') {
      test.fn = inTestContext(test.fn, () => this.caseOf(test));
    } else if (event.name === 'add_hook') {
      const hook = addedHook(event, state);
      if (hook?.fn && (hook.type === 'beforeEach' || hook.type === 'afterEach')) hook.fn = inTestContext(hook.fn, () => this.caseInTurn());
      // A block's `beforeAll`/`afterAll` belongs to no test, whatever test runs beside it (Jest 29's early concurrent ones).
      else if (hook?.fn && (hook.type === 'beforeAll' || hook.type === 'afterAll')) hook.fn = inTestContext(hook.fn, () => null);
    } else if (event.name === 'test_started' && test) {
      this.inTurn.add(test);
      this.caseOf(test);
    } else if (event.name === 'test_done' && test) {
      this.inTurn.delete(test);
      const open = this.open.get(test);
      if (!open) return;
      this.open.delete(test);
      open.end((test.errors?.length ?? 0) === 0);
    } else if (event.name === 'teardown') {
      // A test circus never finished (the file timed out or was interrupted) did not pass.
      for (const open of this.open.values()) open.end(false);
      this.open.clear();
      this.inTurn.clear();
    }
  }

  /** The case of the one test in its turn; none when several run side by side. */
  private caseInTurn(): TestCase | undefined {
    if (this.inTurn.size !== 1) return undefined;
    const [test] = this.inTurn;
    return this.caseOf(test!);
  }

  /** The test's open case, begun now when it is not yet. */
  private caseOf(test: CircusTest): TestCase | undefined {
    let open = this.open.get(test);
    if (!open) {
      open = TestCase.begin(namePath(test), this.testPath) ?? undefined;
      if (open) this.open.set(test, open);
    }
    return open;
  }
}

/** The test `add_test` made: the last child of the describe block being declared, holding the event's function. */
function addedTest(event: CircusEvent, state?: CircusState): CircusTest | undefined {
  const children = state?.currentDescribeBlock?.children;
  const last = children?.[children.length - 1] as CircusTest | undefined;
  return last && last.type === 'test' && last.fn === event.fn ? last : undefined;
}

/** The hook `add_hook` made: the last hook of the describe block being declared, holding the event's function. */
function addedHook(event: CircusEvent, state?: CircusState): CircusHook | undefined {
  const hooks = state?.currentDescribeBlock?.hooks;
  const last = hooks?.[hooks.length - 1];
  return last && last.fn === event.fn && last.type === event.hookType ? last : undefined;
}

/** The names of the test's describe blocks (not circus's root block) and its own. */
function namePath(test: CircusTest): string[] {
  const names = [String(test.name ?? 'test')];
  for (let block = test.parent; block && block.name !== ROOT_BLOCK; block = block.parent) {
    if (block.name) names.unshift(block.name);
  }
  return names;
}
