/**
 * The Vitest setup file. Under the preload, Probe lists it in each pool worker's setup files (no configuration);
 * an app may list it itself (`test: { setupFiles: ['probe/vitest'] }`), and it then runs once. Each test becomes
 * a capture of type `test`. ESM, so that the `vitest` modules here are the instances the test files import (the
 * app's, loaded by Vitest in the tests' realm: a vm context for the vm pools).
 */
import { recordVitestRunner, recordVitestTests, type VitestHooks } from './testrunner/vitestTests.js';

interface Bridge {
  vitest: string;
  runners: string;
  record(runners: unknown): boolean;
  warn(error: unknown): void;
}

// Probe's hooks as the preload made them in this worker (reachable from a vm context too: it shares `process`).
const bridge = (process as unknown as Record<symbol, Bridge | undefined>)[Symbol.for('probe.vitest.runner')];
// Not a dependency of Probe: the app's, so no type comes with it. Under the preload, the copy running this worker
// (by URL: a bare name is resolved from this file's folder, which has no Vitest when Probe is installed outside
// the project); listed by the app itself, the one its project resolves.
const vitestModule: string = bridge?.vitest ?? 'vitest';

try {
  const vitest = (await import(vitestModule)) as VitestHooks & { TestRunner?: unknown };
  // The runner class: `vitest`'s own export from Vitest 4.1 on (`vitest/runners` warns on import there), the
  // `vitest/runners` one before (found beside the worker entry: Probe's package cannot resolve it).
  const runners = vitest.TestRunner ? { VitestTestRunner: vitest.TestRunner } : bridge ? ((await import(bridge.runners)) as unknown) : null;
  const record = bridge?.record ?? recordVitestRunner;
  if (!(runners && record(runners))) recordVitestTests(vitest);
} catch (error) {
  // never in the tests' way: no capture per test, and a word why
  bridge?.warn(error);
}
