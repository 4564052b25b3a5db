import nodeModule from 'node:module';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import type { Logger } from '../util/logger';

let registered = false;

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
 * `module.register` works from a `--require` preload too, before the app's ESM entry is loaded.
 */
export function hookEsmImports(modules: string[], logger: Logger): void {
  // One loader for the process, from its main thread (an app's workers keep their imports as they are).
  if (registered || !isMainThread) return;
  registered = true;
  const register = (nodeModule as { register?: (specifier: string, parentURL: string | URL, options?: object) => void }).register;
  if (typeof register !== 'function') return;
  // The loader thread costs a CommonJS app startup time and memory for nothing its `require`s need.
  if (!entryMayBeEsm()) return;
  const include = modules.filter(appCanLoad);
  if (include.length === 0) return;
  const previous = process.env[LOADER_THREAD_MARK];
  process.env[LOADER_THREAD_MARK] = '1';
  try {
    register('import-in-the-middle/hook.mjs', pathToFileURL(__filename), { data: { include } });
  } catch (error) {
    logger.warnOnce('esm-hook', 'could not hook ESM imports (ESM apps get one row per fetch redirect hop)', error);
  } finally {
    if (previous === undefined) delete process.env[LOADER_THREAD_MARK];
    else process.env[LOADER_THREAD_MARK] = previous;
  }
}

function appCanLoad(name: string): boolean {
  const from = [process.cwd()];
  if (process.argv[1]) from.unshift(path.dirname(path.resolve(process.argv[1])));
  try {
    require.resolve(name, { paths: from });
    return true;
  } catch {
    return false;
  }
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
    return /^\s*(?:import\s*[\w{*'"]|export\s)/m.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/** The nearest package.json's `type`, or null when it names none. */
function packageType(dir: string): string | null {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const type = (JSON.parse(readFileSync(path.join(current, 'package.json'), 'utf8')) as { type?: unknown }).type;
      return typeof type === 'string' ? type : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    }
    if (path.dirname(current) === current) return null;
  }
}
