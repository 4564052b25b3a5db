import type { ProbeConfig, ResolvedConfig } from '../config/types';
import { isPlainObject } from '../config/describe';

/**
 * How the store's thread gets the app's config to build captures with: it loads it itself, from the same
 * root, config file and environment, with `start()`'s overrides. A resolved config holds masks and capture
 * classes, which cannot cross threads; the config file is a module the thread can load, and overrides cross
 * when they are plain data.
 */
export interface BuildSource {
  cwd: string;
  env: Record<string, string>;
  overrides: ProbeConfig;
}

/**
 * The build source of an app's config, or why there is none: overrides given in code that hold functions,
 * classes or instances (a custom mask, a capture class) exist only on the app's thread.
 */
export function buildSourceOf(config: ResolvedConfig, cwd: string, env: NodeJS.ProcessEnv, overrides: ProbeConfig | undefined): BuildSource | string {
  if (overrides !== undefined && !isPlainData(overrides)) {
    return "start() was given parts in code (functions, classes or instances), which cannot cross to the store's thread";
  }
  const pinned: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) pinned[name] = value;
  // The thread must find the same root and file whatever its own working directory resolves to.
  pinned.PROBE_ROOT = config.root;
  if (config.configFile) pinned.PROBE_CONFIG = config.configFile;
  return { cwd, env: pinned, overrides: overrides ?? {} };
}

/** Primitives, RegExps, arrays and plain objects of them: what structured clone carries unchanged. */
function isPlainData(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value)) return true;
  if (value instanceof RegExp) return true;
  if (Array.isArray(value)) return value.every((item) => isPlainData(item, depth + 1));
  return isPlainObject(value) && Object.values(value).every((item) => isPlainData(item, depth + 1));
}
