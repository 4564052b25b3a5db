import type { TestRunnerSource } from './TestRunnerSource';
import { nodeTestRunner } from './nodeTest';
import { vitestRunner } from './vitest';
import { jestRunner } from './jest';
import { mochaRunner } from './mocha';
import { avaRunner } from './ava';
import { nodeTapRunner } from './nodeTap';

/** Every test runner Probe records: start() makes their sources in this order (node:test first: see nodeTest). */
export const TEST_RUNNERS: readonly TestRunnerSource[] = [nodeTestRunner, vitestRunner, jestRunner, mochaRunner, avaRunner, nodeTapRunner];

/**
 * Whether this process is a test runner's own that runs no test file itself. Its command capture is then kept
 * only when it holds calls (a `globalSetup` calling out): an empty one per run and per worker would bury the test
 * captures.
 */
export function isTestRunnerProcess(): boolean {
  return TEST_RUNNERS.some((runner) => runner.isRunnerProcess());
}
