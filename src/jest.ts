/**
 * The Jest test environment: `testEnvironment: 'probe/jest'` in the Jest config, with the tests run under the
 * preload (`NODE_OPTIONS="--require probe/register" npx jest`). It is Jest's own `node` environment
 * (jest-environment-node, resolved from the app) that also hands jest-circus's events to Probe: each test case
 * becomes a capture of type `test`. Without the preload it is the plain `node` environment.
 *
 * `probeEnvironment(Base)` does the same for any other environment class (a custom one, happy-dom's); jsdom has
 * its own entry, `probe/jest-jsdom`.
 */
import { loadJestEnvironment, probeEnvironment } from './testrunner/jestEnvironment';

const NodeEnvironment = loadJestEnvironment('jest-environment-node', ['jest-config']);
if (!NodeEnvironment) {
  throw new Error("probe/jest: cannot load jest-environment-node (installed with jest); add it to the app's devDependencies");
}

export const TestEnvironment = probeEnvironment(NodeEnvironment);
export { probeEnvironment };

// Jest takes a test environment module's default export (its interopRequireDefault).
export default TestEnvironment;
