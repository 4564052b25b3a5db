/**
 * The Jest test environment for DOM suites: `testEnvironment: 'probe/jest-jsdom'` in the Jest config (or a test
 * file's `@jest-environment probe/jest-jsdom` docblock) instead of `jsdom`, with the tests run under the preload.
 * It is the app's own jest-environment-jsdom (its window, document, XMLHttpRequest and export conditions), which
 * Jest has not shipped since 28, that also hands jest-circus's events to Probe like `probe/jest`.
 */
import { loadJestEnvironment, probeEnvironment } from './testrunner/jestEnvironment';

const JsdomEnvironment = loadJestEnvironment('jest-environment-jsdom');
if (!JsdomEnvironment) {
  throw new Error(
    'probe/jest-jsdom: cannot load jest-environment-jsdom; install the one of your Jest version (npm install --save-dev jest-environment-jsdom@<jest major>)',
  );
}

export const TestEnvironment = probeEnvironment(JsdomEnvironment);

// Jest takes a test environment module's default export (its interopRequireDefault).
export default TestEnvironment;
