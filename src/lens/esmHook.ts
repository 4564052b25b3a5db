import nodeModule from 'node:module';
import path from 'node:path';
import { existsSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import type { Logger } from '../util/logger';
import { MAX_CODE_BYTES, MAX_MANIFEST_BYTES, readSafeText } from '../util/safeRead';

let registered = false;
const alsoHooked: string[] = [];
const alsoImported: string[] = [];
const alsoInThreads: string[] = [];
const alsoFiles: string[] = [];

/**
 * Adds a module to the loader's list (before the loader starts: its first hookEsmImports call): a package
 * name, or a module's file URL. `imported`: a CommonJS entry may `import()` it (a CLI that loads the app's ESM
 * build), so the loader is worth its cost whenever the app can load it, as for an ESM-only package.
 * `inThreads`: hooked in a worker thread too, where the other modules are left as they are (a test runner's
 * pool of threads loads its entry there).
 */
export function alsoHookEsm(name: string, options: { imported?: boolean; inThreads?: boolean; byFile?: boolean } = {}): void {
  alsoHooked.push(name);
  if (options.imported) alsoImported.push(name);
  if (options.inThreads) alsoInThreads.push(name);
  // `byFile`: also the file the name resolves to, for loaders that import it by its URL (see exportedFile).
  const file = options.byFile ? exportedFile(name) : null;
  if (file) alsoFiles.push(file);
}

/**
 * Set in the environment only while the loader starts: Node starts its hooks thread with the app's
 * preloads, and the preload uses this to stay out of that thread (`isInternalThread` exists only on newer Node).
 */
export const LOADER_THREAD_MARK = 'PROBE_LOADER_THREAD';

/**
 * An ESM app's `import { fetch } from 'undici'` binds the export as it was when the module loaded, which
 * require hooks never see. import-in-the-middle's loader (what OpenTelemetry's instrumentations use for ESM)
 * makes those bindings patchable, so `InstrumentationBase` patches them like a `require`. Only the modules
 * named here are wrapped, and only when the app can load one of them: every other import is untouched.
 * Both `module.registerHooks` and `module.register` work from a `--require` preload, before the app's ESM entry
 * is loaded.
 */
export function hookEsmImports(modules: string[], logger: Logger, esmOnly: string[] = []): void {
  // One loader for the process, from its main thread (an app's workers keep their imports as they are, but
  // for the modules listed `inThreads`).
  if (registered) return;
  registered = true;
  const { register, registerHooks } = nodeModule as NodeModuleHooks;
  if (typeof register !== 'function' && typeof registerHooks !== 'function') return;
  // The loader costs a CommonJS app startup time and memory for nothing its `require`s need, unless the app
  // can load an ESM-only package (`esmOnly`), which it can only `import()`.
  const include = isMainThread ? [...[...modules, ...alsoHooked].filter(appCanLoad), ...alsoFiles] : alsoInThreads.filter(appCanLoad);
  if (!entryMayBeEsm() && !include.some((name) => esmOnly.includes(name) || alsoImported.includes(name))) return;
  if (include.length === 0) return;
  try {
    if (typeof registerHooks === 'function' && syncHooksWork()) registerInThread(registerHooks, include);
    else if (typeof register === 'function') registerInLoaderThread(register, include);
  } catch (error) {
    logger.warnOnce('esm-hook', 'could not hook ESM imports (ESM apps get one row per fetch redirect hop)', error);
  }
}

interface ImportHooks {
  resolveSync: unknown;
  loadSync: unknown;
  applyOptions(options: { include: string[] }): void;
}

interface NodeModuleHooks {
  register?: (specifier: string, parentURL: string | URL, options?: object) => void;
  registerHooks?: (hooks: { resolve: unknown; load: unknown }) => unknown;
}

/**
 * Where Node's in-thread hooks can run import-in-the-middle's loader (it says which versions: the fix for a
 * nullish CommonJS `source`, https://github.com/nodejs/node/pull/59929). Node 26 deprecates `module.register`
 * (DEP0205, a warning in the app's stderr), and in-thread hooks start no loader thread.
 */
function syncHooksWork(): boolean {
  try {
    const check = require('import-in-the-middle/supports-sync-hooks.mjs') as { supportsSyncHooks?: () => boolean };
    return check.supportsSyncHooks?.() === true;
  } catch {
    return false;
  }
}

/**
 * A hook of Probe's own built by import-in-the-middle's `createHook` (what its `register-hooks.mjs` does), not
 * that file's shared one: its `register()` warns on stderr when the app registers it too, and one shared
 * instance would mix Probe's `include` list with the app's.
 */
function registerInThread(registerHooks: NonNullable<NodeModuleHooks['registerHooks']>, include: string[]): void {
  const { createHook } = require('import-in-the-middle/create-hook.mjs') as { createHook(meta: { url: string }): ImportHooks };
  // createHook finds import-in-the-middle's own files (lib/register.js) relative to the URL it is given.
  const hook = createHook({ url: pathToFileURL(require.resolve('import-in-the-middle/hook.mjs')).href });
  hook.applyOptions({ include });
  registerHooks({ resolve: hook.resolveSync, load: hook.loadSync });
}

function registerInLoaderThread(register: NonNullable<NodeModuleHooks['register']>, include: string[]): void {
  const previous = process.env[LOADER_THREAD_MARK];
  process.env[LOADER_THREAD_MARK] = '1';
  try {
    register(privateHookUrl(), pathToFileURL(__filename), { data: { include } });
  } finally {
    if (previous === undefined) delete process.env[LOADER_THREAD_MARK];
    else process.env[LOADER_THREAD_MARK] = previous;
  }
}

/**
 * import-in-the-middle's loader as a module of Probe's own. Why not its `hook.mjs` as is:
 * - the app may register the same file (OpenTelemetry's `hook.mjs`, Sentry's `--import`): one module instance
 *   in the loader thread, whose options (`include`) the last `initialize` sets for both: Probe's list would
 *   narrow the app's hook, or the app's would widen Probe's. A query in the URL makes a separate instance.
 * - the hook warns on stderr ("has already been initialized") when a second one starts in the thread, whichever
 *   comes first. Probe's hides the mark while it starts, so the app's stderr is as without Probe. See
 *   https://github.com/nodejs/import-in-the-middle/blob/main/create-hook.mjs (`initialize`).
 */
function privateHookUrl(): string {
  const hook = `${pathToFileURL(require.resolve('import-in-the-middle/hook.mjs')).href}?probe`;
  const source = [
    `import * as hook from ${JSON.stringify(hook)};`,
    'const MARK = "__import_in_the_middle_initialized__";',
    'export async function initialize(data) {',
    '  const seen = globalThis[MARK];',
    '  delete globalThis[MARK];',
    '  try { await hook.initialize(data); } finally { if (seen) globalThis[MARK] = seen; else delete globalThis[MARK]; }',
    '}',
    'export const resolve = hook.resolve;',
    'export const load = hook.load;',
  ].join('\n');
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

function appCanLoad(name: string): boolean {
  if (name.startsWith('file:')) return true; // resolved by its lister
  const from = [process.cwd()];
  if (process.argv[1]) from.unshift(path.dirname(path.resolve(process.argv[1])));
  try {
    require.resolve(name, { paths: from });
    return true;
  } catch {
    // An ESM-only package (exports with an `import` condition only) is not found by require.resolve: its folder is.
    return from.some((dir) => installedAbove(dir, name));
  }
}

/** Whether the package of `specifier` (`@scope/name/sub` → `@scope/name`) is installed in `dir` or a folder above it. */
function installedAbove(dir: string, specifier: string): boolean {
  return packageFolder(dir, specifier) !== null;
}

function packageFolder(dir: string, specifier: string): string | null {
  const name = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
  for (let at = dir; ; at = path.dirname(at)) {
    const folder = path.join(at, 'node_modules', name);
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    if (path.dirname(at) === at) return null;
  }
}

/**
 * The file URL a package's ESM subpath export (`@sveltejs/kit/internal/server`) resolves to, as an `import` from the
 * app's folder finds it, or null. A dev server that loads the package's modules by their resolved file URL
 * (Vite's SSR loader importing an external) never uses the bare name the loader's list holds: the file is listed too.
 */
function exportedFile(specifier: string): string | null {
  const from = [process.cwd()];
  if (process.argv[1]) from.unshift(path.dirname(path.resolve(process.argv[1])));
  const depth = specifier.startsWith('@') ? 2 : 1;
  const subpath = ['.', ...specifier.split('/').slice(depth)].join('/');
  for (const dir of from) {
    const folder = packageFolder(dir, specifier);
    if (!folder) continue;
    try {
      const manifest = JSON.parse(readSafeText(path.join(folder, 'package.json'), { maxBytes: MAX_MANIFEST_BYTES, follow: true })) as {
        exports?: Record<string, unknown>;
      };
      const entry = manifest.exports?.[subpath] as string | { import?: unknown; default?: unknown } | undefined;
      const file = typeof entry === 'string' ? entry : typeof entry?.import === 'string' ? entry.import : entry?.default;
      // As the loader sees it: a file URL of the real path (Node resolves links before it loads).
      if (typeof file === 'string') return pathToFileURL(realpathSync(path.join(folder, file))).href;
    } catch {
      // not a package Probe can read: by its name only
    }
  }
  return null;
}

/**
 * Whether the app's entry may run as ESM: `.mjs`/`.mts`, a package of `"type": "module"`, or (no type, as
 * Node's module detection does) an entry with `import`/`export` statements. No entry (a REPL, `-e`): no.
 */
function entryMayBeEsm(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  const file = path.resolve(script);
  const ext = path.extname(file);
  if (ext === '.mjs' || ext === '.mts') return true;
  if (ext === '.cjs' || ext === '.cts') return false;
  const type = packageType(path.dirname(file));
  if (type) return type === 'module';
  try {
    return /^\s*(?:import\s*[\w{*'"]|export\s)/m.test(readSafeText(file, { maxBytes: MAX_CODE_BYTES, follow: true }));
  } catch {
    return false;
  }
}

/** The nearest package.json's `type`, or null when it names none. */
function packageType(dir: string): string | null {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const type = (JSON.parse(readSafeText(path.join(current, 'package.json'), { maxBytes: MAX_MANIFEST_BYTES, follow: true })) as { type?: unknown }).type;
      return typeof type === 'string' ? type : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    }
    if (path.dirname(current) === current) return null;
  }
}
