import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OTEL_CELLS, type Cell, type Run } from './cells';
import { CACHE, cleanEnv, copyHarness, packProbe } from './install';
import { runChild } from '../helpers/child';

/**
 * Probe installed the other ways users install it, beside an app that pins `@opentelemetry/api` 1.9.0 with its
 * own NodeTracerProvider, W3C propagator and context manager (the `otel-api190-sdk20` cell). In the linked, global
 * and workspace layouts Probe resolves a copy of the API of its own (1.9.1), which a packed install never shows:
 * npm dedupes the peer there. One folder per layout under the compat cache, its third-party packages kept between
 * runs; only Probe is replaced.
 */
export const CELL: Cell = OTEL_CELLS.find((cell) => cell.name === 'otel-api190-sdk20')!;
/** An app on an older minor of the API (1.7, SDK 1.30), which Probe's own copy (1.9.1) could not read. */
const OLDER: Cell = OTEL_CELLS.find((cell) => cell.name === 'otel-api17-sdk130')!;
/** The copy Probe's own install holds in the layouts that do not dedupe it. */
export const PROBE_API = '1.9.1';
const PNPM = '12.4.2';

const ROOT = path.join(CACHE, `layouts-${createHash('sha256').update(JSON.stringify(CELL.dependencies)).digest('hex').slice(0, 10)}`);

export interface Layout {
  name: string;
  /** The app's setup and pinned packages. */
  cell: Cell;
  /** Whether Probe resolves its own API copy there (else it shares the app's, as a packed install does). */
  ownApi: boolean;
  /** The app folder the harness runs in. */
  app: string;
  /** Runner arguments that make the app find Probe as users of this layout do (CommonJS, ESM). */
  cjs: string[];
  esm: string[];
  /** The environment `--require probe/register` resolves in (CommonJS). */
  env: NodeJS.ProcessEnv;
  /** Installs the layout (third-party packages kept from an earlier run, Probe replaced). */
  install(): Promise<void>;
}

/** A child in its own process group, killed with the test file (a cold install on a loaded machine: 10 minutes). */
async function run(command: string, args: string[], cwd: string): Promise<void> {
  const result = await runChild(command, args, { cwd, env: { ...cleanEnv(), npm_config_update_notifier: 'false' }, timeout: 600_000, lifetime: 'file' });
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stderr}${result.stdout}`);
}

function npm(args: string[], cwd: string): Promise<void> {
  return run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], cwd);
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

/** An app folder with the cell's harness and the given package.json dependencies (not installed yet). */
function appFolder(dir: string, cell: Cell, dependencies: Record<string, string> = cell.dependencies): string {
  fs.mkdirSync(dir, { recursive: true });
  copyHarness(cell, dir);
  writeJson(path.join(dir, 'package.json'), { name: `layout-${path.basename(dir)}`, version: '1.0.0', private: true, dependencies });
  return dir;
}

/**
 * A Probe checkout as `npm install` leaves it: the packed files (dist/ built) and a node_modules of its own,
 * whose `@opentelemetry/api` is the dev copy (1.9.1, as the checkout's lock has it). Only Probe's files are
 * replaced on a later run. No scripts: `prepare` would build, and the tarball's dist/ is the build.
 */
async function checkout(dir: string, install: boolean): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  for (const entry of fs.readdirSync(dir)) if (entry !== 'node_modules') fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  await run('tar', ['-xzf', await packProbe(), '-C', dir, '--strip-components=1'], dir);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeJson(path.join(dir, 'package.json'), { ...pkg, devDependencies: { '@opentelemetry/api': PROBE_API } });
  if (install) await npm(['install', '--ignore-scripts'], dir);
  return dir;
}

const GLOBAL_MODULES = path.join(ROOT, 'global', 'lib', 'node_modules');
let globalInstalled = false;

/** Probe installed with `npm install -g probe@file:<tarball>` (once per test process); the app has no Probe of its own. */
function globalLayout(name: string, cell: Cell, folder: string): Layout {
  return {
    name,
    cell,
    ownApi: true,
    app: path.join(ROOT, folder),
    // CommonJS finds Probe through NODE_PATH, ESM by its path (ESM resolution has no NODE_PATH).
    cjs: ['--env', `NODE_PATH=${GLOBAL_MODULES}`],
    esm: ['--probe', path.join(GLOBAL_MODULES, 'probe', 'dist', 'register.js')],
    env: { NODE_PATH: GLOBAL_MODULES },
    async install() {
      if (!globalInstalled) await npm(['install', '-g', '--prefix', path.join(ROOT, 'global'), `probe@file:${await packProbe()}`], ROOT);
      globalInstalled = true;
      await npm(['install'], appFolder(this.app, cell));
    },
  };
}

export const LAYOUTS: Layout[] = [
  {
    // `npm install probe@file:/path/to/probe` (a local checkout under the module name `probe`): npm links the folder, Probe resolves its own node_modules.
    name: 'linked checkout',
    cell: CELL,
    ownApi: true,
    app: path.join(ROOT, 'linked'),
    cjs: [],
    esm: [],
    env: {},
    async install() {
      const probe = await checkout(path.join(ROOT, 'checkout'), true);
      // No scripts: npm runs a linked folder's `prepare` (the build), and the tarball's dist/ is the build.
      await npm(['install', '--install-links=false', '--ignore-scripts', `probe@file:${probe}`], appFolder(this.app, CELL));
    },
  },
  globalLayout('global install', CELL, 'global-app'),
  // Probe's files get the app's copy where Probe's own is inside its folder: the app's older registry is read.
  globalLayout('global install, app on API 1.7', OLDER, 'global-app-api17'),
  {
    // A monorepo: workspaces [app, probe]; Probe's dev copy of the API is hoisted or nested apart from the app's pin.
    name: 'npm workspaces',
    cell: CELL,
    ownApi: true,
    app: path.join(ROOT, 'workspaces', 'app'),
    cjs: [],
    esm: [],
    env: {},
    async install() {
      const root = path.dirname(this.app);
      fs.mkdirSync(root, { recursive: true });
      writeJson(path.join(root, 'package.json'), { name: 'layout-workspaces', version: '1.0.0', private: true, workspaces: ['app', 'probe'] });
      await checkout(path.join(root, 'probe'), false);
      appFolder(this.app, CELL, { ...CELL.dependencies, probe: 'file:../probe' });
      await npm(['install', '--ignore-scripts'], root);
    },
  },
  {
    // pnpm (installed from the registry into the cache) with the tarball: its own store, symlinked layout.
    name: 'pnpm',
    cell: CELL,
    ownApi: false,
    app: path.join(ROOT, 'pnpm-app'),
    cjs: [],
    esm: [],
    env: {},
    async install() {
      const tool = path.join(ROOT, 'pnpm');
      const bin = path.join(tool, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');
      if (!fs.existsSync(bin)) await npm(['install', '--prefix', tool, `pnpm@${PNPM}`], ROOT);
      const app = appFolder(this.app, CELL, { ...CELL.dependencies, probe: `file:${await packProbe()}` });
      fs.rmSync(path.join(app, 'pnpm-lock.yaml'), { force: true });
      // pnpm 12 fails on a dependency's build script it was not told about: protobufjs's (a version check) is not run.
      fs.writeFileSync(path.join(app, 'pnpm-workspace.yaml'), 'allowBuilds:\n  protobufjs: false\n');
      // CI=true makes pnpm insist on an unchanged lockfile: the tarball is a new one each run.
      const store = path.join(ROOT, 'pnpm-store');
      await run(process.execPath, [bin, 'install', '--no-frozen-lockfile', '--prefer-offline', '--store-dir', store, '--reporter=silent'], app);
    },
  },
];

/** The `@opentelemetry/api` versions the app and Probe's preload load, resolved as Node resolves them there. */
export async function apiVersions(layout: Layout): Promise<{ app: string; probe: string }> {
  const script = `
    const { createRequire } = require('node:module');
    const register = require('node:fs').realpathSync(require.resolve('probe/register'));
    const version = (req) => {
      const main = req.resolve('@opentelemetry/api');
      const dir = main.slice(0, main.lastIndexOf('@opentelemetry/api') + '@opentelemetry/api'.length);
      return JSON.parse(require('node:fs').readFileSync(dir + '/package.json', 'utf8')).version;
    };
    console.log(JSON.stringify({ app: version(require), probe: version(createRequire(register)) }));`;
  const out = await runChild(process.execPath, ['-e', script], { cwd: layout.app, env: { ...cleanEnv(), ...layout.env } });
  if (out.code !== 0) throw new Error(`could not read the API versions in ${layout.app}:\n${out.stderr}`);
  return JSON.parse(out.stdout) as { app: string; probe: string };
}

/** Probe before and after the app's setup (CommonJS, a script and a node:http server), and before it in ESM. */
export function layoutRuns(layout: Layout): Run[] {
  return [
    { mode: 'script', order: 'before', args: layout.cjs },
    { mode: 'server', server: 'http', order: 'before', args: layout.cjs },
    { mode: 'script', order: 'after', args: layout.cjs },
    { mode: 'script', esm: true, order: 'before', args: layout.esm },
  ];
}
