import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChild } from './child';

/*
 * Third-party packages a test needs at pinned versions, installed into a cache folder outside the repository
 * (each suite names its own, through its own environment variable) and kept between runs and Node versions.
 * npm runs as a child process through helpers/child, so the runner is never blocked and a stuck install is
 * killed with its group.
 */

const ROOT = path.resolve(__dirname, '../..');

/** A short hash of an app's pins, for a cache folder name that changes when they do. */
export function pinsKey(pins: unknown): string {
  return createHash('sha256').update(JSON.stringify(pins)).digest('hex').slice(0, 10);
}

/** Without the settings of the runner's own environment that would change an agent's, npm's or Probe's behaviour. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(NODE_OPTIONS|PROBE_|REDIS_URL|OTEL_|DD_|NEW_RELIC_|SENTRY_|ELASTIC_APM_)/.test(name)) continue;
    env[name] = value;
  }
  return env;
}

let packed: Promise<string> | undefined;

/**
 * The release tarball of this checkout (`npm run pack`, of the dist/ `npm test` built first), once per test
 * process: it never rebuilds dist/ under the tests running beside it.
 */
export function packProbe(): Promise<string> {
  // PROBE_COMPAT_TGZ: another build's tarball (to see the suite fail on a Probe without a fix).
  if (process.env.PROBE_COMPAT_TGZ) return Promise.resolve(path.resolve(process.env.PROBE_COMPAT_TGZ));
  packed ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-pack-'));
    const out = await runChild(process.execPath, [path.join(ROOT, 'scripts', 'pack.mjs'), '--pack-destination', dir], { cwd: ROOT, lifetime: 'file' });
    if (out.code !== 0) throw new Error(`npm run pack failed:\n${out.stderr}${out.stdout}`);
    return out.stdout.trim().split('\n').pop()!;
  })();
  return packed;
}

/**
 * `npm install` in an app folder of a cache, as a child process killed with its group if it runs past `timeout`
 * (10 minutes: a cold install on a loaded machine). The caches are shared by runs and by parallel test files.
 */
export async function npmInstall(app: string, env: NodeJS.ProcessEnv = cleanEnv(), timeout = 600_000): Promise<void> {
  const result = await runChild('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: app,
    env,
    timeout,
    lifetime: 'file',
  });
  if (result.code !== 0) throw new Error(`npm install failed in ${app}:\n${result.stderr}${result.stdout}`);
}

export interface PinnedApp {
  /** The app's folder in its suite's cache. */
  dir: string;
  /** Its package.json: name, pinned dependencies, and `overrides` to pin a transitive one. */
  package: { name: string; type?: 'module'; dependencies: Record<string, string>; overrides?: Record<string, string> };
  /**
   * true: this checkout's npm-packed Probe is installed beside the pins as a user would have it, replaced once
   * per test process. false: only the pins, installed once and reused by later runs (Probe, when the test needs
   * it, is this checkout's dist/ through the preload flag).
   */
  probe: boolean;
  /** Puts the app's own files in before the install. */
  prepare?: (dir: string) => void;
  /**
   * A package-lock.json written for these pins (in the repository): the install keeps the whole tree it locks, so
   * a transitive dependency's new release changes nothing on a later day. Probe (`probe: true`) is added to it.
   */
  lockfile?: string;
}

/** Apps this test process installed already. */
const installed = new Set<string>();

/** Installs an app of pinned packages into its cache folder (see PinnedApp) and returns the folder. */
export async function installPinned(app: PinnedApp): Promise<string> {
  const { dir } = app;
  if (installed.has(dir)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  app.prepare?.(dir);
  const { name, type, dependencies, overrides } = app.package;
  // This key order is the one the cached folders' install markers were written with.
  const pkg = { name, version: '1.0.0', private: true, ...(type ? { type } : {}), dependencies, ...(overrides ? { overrides } : {}) };
  if (app.probe) {
    pkg.dependencies = { ...dependencies, probe: `file:${await packProbe()}` };
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
    // A fresh resolution of Probe's own dependencies, as a first install gets: npm keeps a nested package an
    // earlier Probe brought (say its own @opentelemetry/api) when it still satisfies the new one's ranges.
    fs.rmSync(path.join(dir, 'node_modules', 'probe'), { recursive: true, force: true });
    if (app.lockfile) fs.copyFileSync(app.lockfile, path.join(dir, 'package-lock.json'));
    else fs.rmSync(path.join(dir, 'package-lock.json'), { force: true });
    await npmInstall(dir);
  } else {
    const text = JSON.stringify(pkg, null, 2) + '\n';
    const done = path.join(dir, 'node_modules', '.probe-installed');
    if (!fs.existsSync(done) || fs.readFileSync(done, 'utf8') !== text) {
      fs.writeFileSync(path.join(dir, 'package.json'), text);
      if (app.lockfile) fs.copyFileSync(app.lockfile, path.join(dir, 'package-lock.json'));
      await npmInstall(dir);
      fs.writeFileSync(done, text);
    }
  }
  installed.add(dir);
  return dir;
}
