import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, installPinned, pinsKey } from '../helpers/pinned';
import { runChild } from '../helpers/child';

/** Next.js apps are installed outside the repository, from pinned versions, and kept (with their builds) between runs. */
export const CACHE = process.env.PROBE_NEXT_CACHE ?? path.join(os.homedir(), '.cache', 'probe-next');
export const FIXTURE = path.join(__dirname, 'apps', 'next-app');
/** The app's instrumentation.ts of the README, copied into the fixture only for the build that starts Probe from it. */
export const INSTRUMENTATION = path.join(__dirname, 'apps', 'instrumentation.ts');

/** One pinned Next.js with its React. */
export interface NextVersion {
  name: string;
  dependencies: Record<string, string>;
}

/** Shared by every version: the fixture is TypeScript, and `next build` would try to install these itself. */
const TYPES = { typescript: '5.9.3', '@types/react': '19.1.17', '@types/node': '22.19.1' };

/**
 * The fixture app (test/next/app) in the cache with the pinned Next.js and the npm-packed Probe beside it, as a
 * user would have it. The fixture's files are copied in fresh; the packages stay; Probe is replaced once per test
 * process (a fresh resolution of its dependencies).
 */
export function installNextApp(version: NextVersion): Promise<string> {
  const dependencies = { ...version.dependencies, ...TYPES };
  return installPinned({
    dir: path.join(CACHE, `next-${version.name}-${pinsKey(dependencies)}`),
    package: { name: `next-${version.name}`, dependencies },
    probe: true,
    prepare(app) {
      for (const dir of ['app', 'pages', 'lib', 'instrumentation.ts']) fs.rmSync(path.join(app, dir), { recursive: true, force: true });
      fs.cpSync(FIXTURE, app, { recursive: true });
    },
  });
}

/** A hash of the fixture's files (and the instrumentation file when it is built in): a production build is redone only when they change. */
function fixtureKey(instrumented: boolean): string {
  const hash = createHash('sha256');
  if (instrumented) hash.update(fs.readFileSync(INSTRUMENTATION));
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
 * The environment the fixture's next.config.mjs reads: its build folder, server source maps on, off, or Next's
 * default (null), and whether the build starts Probe from instrumentation.ts (the settings that needs).
 */
export function nextEnv(dist: string, maps: boolean | null, instrumented = false): NodeJS.ProcessEnv {
  return {
    ...cleanEnv(),
    NEXT_DIST: dist,
    ...(maps === null ? {} : { NEXT_SERVER_MAPS: maps ? '1' : '0' }),
    ...(instrumented ? { NEXT_INSTRUMENTATION: '1' } : {}),
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

/**
 * `next build` into `dist` once per fixture and version (a build takes minutes on a loaded machine). Built
 * without Probe: the build is the app's own; Probe is only the preload of the server that runs it, or, with
 * `instrumented`, started by the app's instrumentation.ts, which is in the app for this build only (Next compiles
 * it into the build; `next dev` and the other builds never see it).
 */
export async function buildNextApp(app: string, dist: string, maps: boolean, instrumented = false): Promise<void> {
  const marker = path.join(app, dist, 'probe-fixture-key');
  const key = fixtureKey(instrumented);
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === key) return;
  fs.rmSync(path.join(app, dist), { recursive: true, force: true });
  const hook = path.join(app, 'instrumentation.ts');
  if (instrumented) fs.copyFileSync(INSTRUMENTATION, hook);
  try {
    const result = await runChild(process.execPath, [nextBin(app), 'build'], {
      cwd: app,
      env: nextEnv(dist, maps, instrumented),
      timeout: 1_200_000,
      lifetime: 'file',
    });
    if (result.code !== 0) throw new Error(`next build (${dist}) failed in ${app} (${result.code ?? result.signal}):\n${result.stderr}${result.stdout}`);
  } finally {
    fs.rmSync(hook, { force: true });
  }
  fs.writeFileSync(marker, key);
}

export function nextBin(app: string): string {
  return path.join(app, 'node_modules', 'next', 'dist', 'bin', 'next');
}
