import os from 'node:os';
import path from 'node:path';
import { cleanEnv, installPinned } from '../helpers/pinned';

/** Test runners are installed outside the repository, from pinned versions, and kept between runs. */
export const CACHE = process.env.PROBE_TESTRUNNER_CACHE ?? path.join(os.homedir(), '.cache', 'probe-testrunner');

/**
 * An app folder in the cache with the pinned packages and the npm-packed Probe installed beside them. `lockfile`:
 * the pins' package-lock.json in the repository (written by `npm install --package-lock-only` in a folder holding
 * the package.json this writes, Probe left out), which keeps their whole tree as it was locked.
 */
export function installRunnerApp(name: string, dependencies: Record<string, string>, lockfile?: string): Promise<string> {
  return installPinned({ dir: path.join(CACHE, name), package: { name: `testrunner-${name}`, type: 'module', dependencies }, probe: true, lockfile });
}

export { cleanEnv };
