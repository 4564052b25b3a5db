import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import { currentRuntime } from '../runtime/state';
import type { SourceFactory, UnitSource } from '../runtime/UnitSource';
import { alsoHookEsm } from '../lens/esmHook';

/** What Probe reads of node:test's TestContext (`fullName` and `passed` are there from Node 20.16). */
interface TestContextLike {
  name?: string;
  fullName?: string;
  passed?: boolean;
  after?: (fn: () => void) => void;
}

interface NodeTestExports {
  beforeEach?: (fn: (t: TestContextLike) => void) => void;
}

const HOOKED = Symbol.for('probe.node-test.hooked');

/** Whether this process runs `node --test` files: a child of the runner, or the runner with isolation off. */
export function nodeTestMayRun(): boolean {
  return Boolean(process.env.NODE_TEST_CONTEXT) || process.execArgv.some((arg) => arg === '--test');
}

/**
 * The unit source of node:test test cases. First in start()'s list: node:test files are ESM often, and their
 * `import 'node:test'` goes through the loader only if it is listed before the loader starts (the fetch lens
 * starts it).
 */
export const nodeTestUnits: SourceFactory<UnitSource> = ({ config, logger }) => {
  if (!config.http) return null;
  if (nodeTestMayRun()) alsoHookEsm('node:test');
  return { name: 'node:test', instrumentations: [new NodeTestInstrumentation(logger)], enable: () => () => {} };
};

/**
 * Makes each node:test test case a capture of type `test`. When the app loads `node:test` (a `require`, or an
 * `import` through the import-in-the-middle loader), Probe adds one root-level `beforeEach`: node:test runs it
 * before every test of the file, nested suites and subtests included, ahead of the app's own hooks. It opens
 * the test's unit and registers the test's `after`, which node:test runs after every `afterEach`, when
 * `t.passed` is final. Registering on load and not at start matters: a root hook starts node:test's harness,
 * which reports (on stdout) at exit, and `NODE_TEST_CONTEXT` reaches every process a test spawns.
 * Nothing is patched: the module's exports are returned as they are.
 */
export class NodeTestInstrumentation extends InstrumentationBase {
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
      const runtime = currentRuntime();
      if (!runtime || !t || typeof t.after !== 'function') return;
      const unit = runtime.recorder.beginTest(String(t.fullName ?? t.name ?? 'test'));
      t.after(() => {
        try {
          runtime.recorder.endTest(unit, t.passed !== false);
        } catch (error) {
          logger.warnOnce('node-test-end', 'could not end a test capture', error);
        }
      });
    } catch (error) {
      logger.warnOnce('node-test-start', 'could not start a test capture', error);
    }
  });
}
