/**
 * The Vitest setup file. Under the preload, Vitest 3 runs it with no configuration (Probe lists it in each
 * worker's setup files); listed by the app (`test: { setupFiles: ['probe/vitest'] }`), it records Vitest 4 too.
 * Each test becomes a capture of type `test`. ESM, so that the `vitest` modules here are the instances the test
 * files import (the app's, loaded by Vitest in the tests' realm: a vm context for the vm pools).
 */
import { recordVitestTests, type VitestHooks } from './testrunner/vitestTests.js';

interface Bridge {
  runners: string;
  record(runners: unknown): boolean;
}

// Probe's hooks as the preload made them in this worker (reachable from a vm context too: it shares `process`).
const bridge = (process as unknown as Record<symbol, Bridge | undefined>)[Symbol.for('probe.vitest.runner')];
// Not a dependency of Probe: resolved from the app at run time, so no type comes with it.
const vitestModule: string = 'vitest';

try {
  if (!(bridge && bridge.record(await import(bridge.runners)))) recordVitestTests((await import(vitestModule)) as VitestHooks);
} catch {
  // never in the tests' way: no capture per test
}
