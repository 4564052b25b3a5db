import { createRequire } from 'node:module';
import path from 'node:path';
import { currentRuntime } from '../runtime/state';
import { JestTests, type CircusEvent } from './jest';

/** What Probe uses of a Jest test environment class (jest-environment-node, jest-environment-jsdom; Jest 29 and 30). */
export interface JestEnvironmentLike {
  getVmContext(): object | null;
  handleTestEvent?(event: CircusEvent, state: unknown): unknown;
}

/** A Jest test environment class: Jest constructs it with its config and the test file's context. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's base takes any constructor arguments
export type JestEnvironmentClass = new (...args: any[]) => JestEnvironmentLike;

/**
 * The environment class a package exports (`TestEnvironment`, or its default export), loaded from the app: beside
 * Probe (npm hoists the app's packages above it), else from the working directory (where Jest runs), else through
 * each of `via` (a package that depends on it: jest-config brings jest-environment-node). Null when none has it.
 */
export function loadJestEnvironment(name: string, via: string[] = []): JestEnvironmentClass | null {
  const fromCwd = () => createRequire(path.join(process.cwd(), 'package.json'));
  const attempts = [
    () => require(name) as unknown,
    () => fromCwd()(name) as unknown,
    ...via.map((parent) => () => createRequire(fromCwd().resolve(parent))(name) as unknown),
  ];
  for (const attempt of attempts) {
    try {
      const exports = attempt() as { TestEnvironment?: unknown; default?: unknown };
      const found = exports.TestEnvironment ?? exports.default ?? exports;
      if (typeof found === 'function') return found as JestEnvironmentClass;
    } catch {
      // next place
    }
  }
  return null;
}

/**
 * `Base` (a Jest test environment, used as it is: its globals, its vm context, its export conditions) that also
 * hands jest-circus's events to Probe, so each test case becomes a capture of type `test` (the source maps of
 * the code Jest evaluates are watched for every process: origin/compiledCode). Without the preload it is `Base`,
 * nothing more.
 */
export function probeEnvironment(Base: JestEnvironmentClass): JestEnvironmentClass {
  return class ProbeTestEnvironment extends Base {
    /** Null without the preload. */
    readonly #probeTests: JestTests | null = null;

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the mixin passes Jest's arguments on unchanged
    constructor(...args: any[]) {
      super(...args);
      try {
        if (currentRuntime()) {
          const context = args[1] as { testPath?: string } | undefined;
          this.#probeTests = new JestTests(String(context?.testPath ?? ''));
        }
      } catch {
        // never in the tests' way
      }
    }

    override handleTestEvent(event: CircusEvent, state: unknown): unknown {
      try {
        this.#probeTests?.handle(event);
      } catch {
        // never in the tests' way
      }
      // The base environment's own handler, if it has one (jest-environment-node has none today), still runs.
      return super.handleTestEvent?.(event, state);
    }
  };
}
