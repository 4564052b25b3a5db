import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { npmInstall, packProbe } from '../compat/install';

/** SDK apps are installed outside the repository and kept between runs (PROBE_SDK_CACHE to move it). */
export const CACHE = process.env.PROBE_SDK_CACHE ?? path.join(os.homedir(), '.cache', 'probe-sdk');

/**
 * An app folder in the cache with the SDKs at their pinned versions and this checkout's packed Probe beside
 * them, installed as a user would; the SDKs stay between runs, Probe is replaced each time. `files` are
 * written into it (the app, its config).
 */
export async function installSdkApp(name: string, dependencies: Record<string, string>, files: Record<string, string>): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify(dependencies)).digest('hex').slice(0, 10);
  const app = path.join(CACHE, `${name}-${key}`);
  fs.mkdirSync(app, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(app, file), text);
  const pkg = { name: `sdk-${name}`, version: '1.0.0', private: true, dependencies: { ...dependencies, probe: `file:${await packProbe()}` } };
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  fs.rmSync(path.join(app, 'node_modules', 'probe'), { recursive: true, force: true });
  fs.rmSync(path.join(app, 'package-lock.json'), { force: true });
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  await npmInstall(app);
  return app;
}
