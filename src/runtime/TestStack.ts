import type { Unit } from './Unit';

/**
 * The test units running now, innermost last. Test runners run a test's body and hooks in contexts of their own
 * (node:test in the AsyncResource of the test's declaration, Vitest in its runner's), so no span can delimit a
 * test: while one runs, what no request or job claims is that test's (see Recorder.activeUnit).
 */
export class TestStack {
  private readonly running: Unit[] = [];

  get innermost(): Unit | undefined {
    return this.running[this.running.length - 1];
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
}
