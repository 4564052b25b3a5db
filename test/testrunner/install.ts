import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, npmInstall, packProbe } from '../compat/install';

/** Test runners are installed outside the repository, from pinned versions, and kept between runs. */
export const CACHE = process.env.PROBE_TESTRUNNER_CACHE ?? path.join(os.homedir(), '.cache', 'probe-testrunner');

/** Apps whose Probe this test process installed already. */
const installed = new Set<string>();

/**
 * An app folder in the cache with the pinned packages and the npm-packed Probe installed beside them, as a user
 * would have it. The packages stay; Probe is replaced once per test process (a fresh resolution of its dependencies).
 */
export async function installRunnerApp(name: string, dependencies: Record<string, string>): Promise<string> {
  const app = path.join(CACHE, name);
  if (installed.has(app)) return app;
  fs.mkdirSync(app, { recursive: true });
  const pkg = {
    name: `testrunner-${name}`,
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies: { ...dependencies, probe: `file:${await packProbe()}` },
  };
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  fs.rmSync(path.join(app, 'node_modules', 'probe'), { recursive: true, force: true });
  fs.rmSync(path.join(app, 'package-lock.json'), { force: true });
  await npmInstall(app);
  installed.add(app);
  return app;
}

export { cleanEnv };
