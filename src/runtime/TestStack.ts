import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { Unit } from './Unit';

/**
 * The test units running now, and the async context each test's own code runs in. A call belongs to the test
 * whose context made it (a runner's test function and hooks, wrapped where the runner lets Probe: see
 * src/testrunner/), so tests running concurrently in one process each keep their own calls. A context can also
 * say "no test" (`null`: a suite's `beforeAll`, run while other tests run): its calls go to the process. Work in
 * a context that says nothing (a hook a runner calls from a context of its own) belongs to the running test only
 * when that is unambiguous: the tests running form one chain of nested tests (a test and its subtests), never
 * siblings running at once.
 */
export class TestStack {
  private readonly running: Unit[] = [];
  private readonly context = new AsyncLocalStorage<Unit | null>();

  /**
   * The test this context belongs to: its own (while open; none when it says no test), else the innermost of one
   * chain of running tests.
   */
  current(): Unit | undefined {
    const own = this.context.getStore();
    if (own === null) return undefined;
    if (own) return own.closed ? undefined : own;
    return this.chain();
  }

  /** Runs `fn` in the unit's context (null: in no test's): what it starts, now or later, belongs there. */
  run<T>(unit: Unit | null, fn: () => T): T {
    return this.context.run(unit, fn);
  }

  /**
   * The rest of the current async function, and all it awaits and starts, belongs to the test (null: to no test,
   * the runner's own work). For a runner that runs each test (its hooks, its function) inside one async function of
   * its own and calls out to Probe synchronously at its start, before its first await: that function's awaits carry
   * the context, and a test started later replaces it for its own.
   */
  enter(unit: Unit | null): void {
    this.context.enterWith(unit);
  }

  /**
   * Makes what `resource` runs from now on (`runInAsyncScope`, in the context it was made in) belong to `unit`, or
   * to no test (null): for a runner that calls a test's code through an AsyncResource of its own, where a wrapper around
   * the code would show in the test's stack traces. Where AsyncLocalStorage keeps its stores on the resource
   * (Node 20, 22), `enterWith` inside the resource's scope sets it; where it keeps them in the context frame the
   * resource took when made (Node 24+), the resource is given that frame with the test added. False when neither
   * holds: then its code runs as it was.
   */
  bindResource(resource: AsyncResource, unit: Unit | null): boolean {
    const runIn = AsyncResource.prototype.runInAsyncScope;
    const holds = () => runIn.call(resource, () => this.context.getStore()) === unit;
    runIn.call(resource, () => this.context.enterWith(unit));
    if (holds()) return true;
    const frame = Object.getOwnPropertySymbols(resource).find((symbol) => symbol.description === 'context_frame');
    if (!frame) return false;
    const made = runIn.call(resource, () => this.context.run(unit, () => new AsyncResource('ProbeTestContext')));
    (resource as unknown as Record<symbol, unknown>)[frame] = (made as unknown as Record<symbol, unknown>)[frame];
    return holds();
  }

  isEmpty(): boolean {
    return this.running.length === 0;
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
    // Asked on every call outside a test's context: no test running is the common answer (and `running[-1]` a slow read).
    if (this.running.length === 0) return undefined;
    for (let at = 1; at < this.running.length; at++) {
      if (!extendsPath(this.running[at]!, this.running[at - 1]!)) return undefined;
    }
    return this.running[this.running.length - 1];
  }
}

/**
 * Whether `inner`'s name path extends `outer`'s by names (`['a', 'b']` extends `['a']`; `['a > b']` does not,
 * though its name reads the same).
 */
function extendsPath(inner: Unit, outer: Unit): boolean {
  const a = inner.testPath;
  const b = outer.testPath;
  if (!a || !b) return inner.name.startsWith(`${outer.name} > `);
  return a.length > b.length && b.every((name, at) => a[at] === name);
}
