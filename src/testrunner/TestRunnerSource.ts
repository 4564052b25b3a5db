import type { SourceFactory, UnitSource } from '../runtime/UnitSource';

/**
 * The contract of a test runner Probe records with no configuration of the runner: each test case one capture of
 * type `test`. A runner is one file in src/testrunner/ exporting one of these, listed in `runners.ts`; start()
 * makes every runner's source like any other unit source.
 *
 * What a runner's source does, through the helpers beside this file:
 * - **Detection**: its instrumentations hook the runner's own module when the process loads it (require or
 *   import: `node:test`, `jest-circus`'s adapter, Mocha's `Runner`), so a process that runs no tests pays nothing;
 *   `isRunnerProcess` names the runner's processes that run no test themselves.
 * - **Start and end**: `TestCase.begin(names)` when the runner starts a test (before its `beforeEach` hooks), with
 *   the test's name path (`suite > inner > case`, the file and the runner's root suite left out);
 *   `TestCase.end(passed)` after its `afterEach` hooks, `passed` being the runner's own verdict (its status, not
 *   Probe's guess; `'skipped'` for a test the runner reports skipped once it ran: `ctx.skip()`, `t.skip()`).
 * - **Attribution**: the test's function (and a hook run for one test, where the runner hands it the test) runs
 *   in the test's async context (`inTestContext`, `TestCase.bind` for a runner's own AsyncResource, or
 *   `TestCase.enter()` at the start of the runner's own async function that runs the whole test): a call belongs
 *   to the test whose context made it, so tests running at once keep their own calls; a suite's hook runs in no
 *   test's (null). Calls in no test's context (a hook the runner calls from its own) go to
 *   the one test running, or to the process's command capture when several run side by side (see TestStack).
 */
export interface TestRunnerSource {
  /** The runner, for PROBE_DEBUG. */
  readonly name: string;
  /**
   * Whether this process is one of the runner's own that run no test file (`vitest run`, a pool's entry): its
   * command capture is then kept only when it holds calls (a `globalSetup` calling out).
   */
  isRunnerProcess(): boolean;
  /** Makes the unit source (null when it has nothing to do here). */
  readonly units: SourceFactory<UnitSource>;
}
