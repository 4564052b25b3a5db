import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, installApp } from '../compat/install';

/** Next.js apps are installed outside the repository, from pinned versions, and kept (with their builds) between runs. */
export const CACHE = process.env.PROBE_NEXT_CACHE ?? path.join(os.homedir(), '.cache', 'probe-next');
const FIXTURE = path.join(__dirname, 'app');

/** One pinned Next.js with its React. */
export interface NextVersion {
  name: string;
  dependencies: Record<string, string>;
}

/** Shared by every version: the fixture is TypeScript, and `next build` would install these itself. */
const TYPES = { typescript: '5.9.3', '@types/react': '19.1.17', '@types/node': '22.19.1' };

/**
 * The fixture app (test/next/app) in the cache with the pinned Next.js and the npm-packed Probe beside it. The
 * fixture's files are copied in fresh each time; stale ones from an older fixture are removed.
 */
export function installNextApp(version: NextVersion): string {
  return installApp(`next-${version.name}`, { ...version.dependencies, ...TYPES }, (app) => {
    for (const dir of ['app', 'pages', 'lib']) fs.rmSync(path.join(app, dir), { recursive: true, force: true });
    fs.cpSync(FIXTURE, app, { recursive: true });
  });
}

/** A hash of the fixture's files: the production build is redone only when they change. */
function fixtureKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(path.relative(FIXTURE, full)).update('\0').update(fs.readFileSync(full));
    }
  };
  walk(FIXTURE);
  return hash.digest('hex').slice(0, 16);
}

/**
 * `next build` into `.next-build` once per fixture and version (a build takes minutes on a loaded machine).
 * Built without Probe: the build is the app's own; Probe is only the preload of the server that runs it.
 */
export function buildNextApp(app: string): string {
  const dist = '.next-build';
  const marker = path.join(app, dist, 'probe-fixture-key');
  const key = fixtureKey();
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === key) return dist;
  fs.rmSync(path.join(app, dist), { recursive: true, force: true });
  const result = spawnSync(process.execPath, [path.join(app, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
    cwd: app,
    encoding: 'utf8',
    env: { ...cleanEnv(), NEXT_DIST: dist, NEXT_TELEMETRY_DISABLED: '1' },
    timeout: 900_000,
  });
  if (result.status !== 0) throw new Error(`next build failed in ${app} (${result.status}):\n${result.stderr}${result.stdout}`);
  fs.writeFileSync(marker, key);
  return dist;
}
