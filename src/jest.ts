/**
 * The Jest test environment: `testEnvironment: 'probe/jest'` in the Jest config, with the tests run under the
 * preload (`NODE_OPTIONS="--require probe/register" npx jest`). It is Jest's own `node` environment
 * (jest-environment-node, resolved from the app) that also hands jest-circus's events to Probe: each test case
 * becomes a capture of type `test`. Without the preload it is the plain `node` environment.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { currentRuntime } from './runtime/state';
import { JestTests, type CircusEvent } from './testrunner/jest';
import { watchJestScripts } from './testrunner/jestScripts';

/** What Probe uses of jest-environment-node's class (Jest 29 and 30). */
interface NodeEnvironmentLike {
  getVmContext(): object | null;
  handleTestEvent?(event: CircusEvent, state: unknown): unknown;
}
type NodeEnvironmentClass = new (config: unknown, context: { testPath?: string }) => NodeEnvironmentLike;

/**
 * Jest's `node` environment, from where the app has Jest: beside Probe (npm hoists it), else from the working
 * directory, else through jest-config, which depends on it.
 */
function loadNodeEnvironment(): NodeEnvironmentClass {
  const attempts = [
    () => require('jest-environment-node') as unknown,
    () => createRequire(path.join(process.cwd(), 'package.json'))('jest-environment-node') as unknown,
    () => {
      const fromCwd = createRequire(path.join(process.cwd(), 'package.json'));
      return createRequire(fromCwd.resolve('jest-config'))('jest-environment-node') as unknown;
    },
  ];
  for (const attempt of attempts) {
    try {
      const exports = attempt() as { TestEnvironment?: unknown; default?: unknown };
      const found = exports.TestEnvironment ?? exports.default ?? exports;
      if (typeof found === 'function') return found as NodeEnvironmentClass;
    } catch {
      // next place
    }
  }
  throw new Error("probe/jest: cannot load jest-environment-node (installed with jest); add it to the app's devDependencies");
}

const NodeEnvironment = loadNodeEnvironment();

export class TestEnvironment extends NodeEnvironment {
  /** Null without the preload: the environment is then Jest's `node` one, nothing more. */
  private readonly probeTests: JestTests | null = null;

  constructor(config: unknown, context: { testPath?: string }) {
    super(config, context);
    try {
      if (currentRuntime()) {
        this.probeTests = new JestTests(String(context?.testPath ?? ''));
        watchJestScripts(this.getVmContext());
      }
    } catch {
      // never in the tests' way
    }
  }

  override handleTestEvent(event: CircusEvent, state: unknown): unknown {
    try {
      this.probeTests?.handle(event);
    } catch {
      // never in the tests' way
    }
    // jest-environment-node has no handler of its own today; one added later still runs.
    return super.handleTestEvent?.(event, state);
  }
}

// Jest takes a test environment module's default export (its interopRequireDefault).
export default TestEnvironment;
