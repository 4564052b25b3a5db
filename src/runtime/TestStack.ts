import { AsyncLocalStorage } from 'node:async_hooks';
import type { Unit } from './Unit';

/** The context of a runner's own work between tests (a suite's hooks): no test's, whoever is running. */
const RUNNER: unique symbol = Symbol("the runner's own work");

/**
 * The test units running now, and the async context each test's own code runs in. A call belongs to the test
 * whose context made it (a runner's test function, wrapped where the runner lets Probe: see src/testrunner/), so
 * tests running concurrently in one process each keep their own calls. Work in no test's context (a hook a runner
 * calls from a context of its own) belongs to the running test only when that is unambiguous: the tests running
 * form one chain of nested tests (a test and its subtests), never siblings running at once.
 */
export class TestStack {
  private readonly running: Unit[] = [];
  private readonly context = new AsyncLocalStorage<Unit | typeof RUNNER>();

  /** The test this context belongs to: its own (while open), else the innermost of one chain of running tests. */
  current(): Unit | undefined {
    const own = this.context.getStore();
    if (own === RUNNER) return undefined;
    if (own) return own.closed ? undefined : own;
    return this.chain();
  }

  /** Runs `fn` in the unit's context: what it starts, now or later, belongs to that test. */
  run<T>(unit: Unit, fn: () => T): T {
    return this.context.run(unit, fn);
  }

  /**
   * The rest of the current async function, and all it awaits and starts, belongs to the test (null: to the
   * runner itself, no test). For a runner that runs each test (its hooks, its function) inside one async
   * function of its own and calls out to Probe synchronously at its start, before its first await: that
   * function's awaits carry the context, and a test started later replaces it for its own.
   */
  enter(unit: Unit | null): void {
    this.context.enterWith(unit ?? RUNNER);
  }

  push(unit: Unit): void {
    this.running.push(unit);
  }

  /** A test ended (tests nest: node:test subtests); one not running is ignored. */
  remove(unit: Unit): void {
    const at = this.running.lastIndexOf(unit);
    if (at >= 0) this.running.splice(at, 1);
  }

  /** Every test still running, innermost first, and the stack emptied (the process is ending). */
  drain(): Unit[] {
    return this.running.splice(0).reverse();
  }

  /**
   * The innermost running test when each running test is nested in the one before (its name path extends it:
   * `suite > case` in `suite`), none when two run side by side (concurrent tests: only their contexts tell).
   */
  private chain(): Unit | undefined {
    for (let at = 1; at < this.running.length; at++) {
      if (!this.running[at]!.name.startsWith(`${this.running[at - 1]!.name} > `)) return undefined;
    }
    return this.running[this.running.length - 1];
  }
}
