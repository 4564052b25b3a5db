/**
 * The Vitest setup file: `test: { setupFiles: ['probe/vitest'] }` in the Vitest config, with the tests run under
 * the preload (`NODE_OPTIONS="--require probe/register" npx vitest run`). Each test becomes a capture of type
 * `test`. ESM, so that `vitest` here is the instance the test files import (the app's, loaded by Vitest).
 */
import { recordVitestTests, type VitestHooks } from './testrunner/vitest.js';

// Not a dependency of Probe: resolved from the app at run time, so no type comes with it.
const vitestModule: string = 'vitest';
recordVitestTests((await import(vitestModule)) as VitestHooks);
