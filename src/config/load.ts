import path from 'node:path';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { ProbeConfig, ResolvedConfig } from './types';
import { ProbeConfigError } from './ProbeConfigError';
import { resolveConfig } from './resolve';
import { mergeConfig } from './merge';
import { findAppRoot } from './appRoot';
import { configTrialFailure } from './configTrial';
import { loadFailure, messageOf } from './loadFailure';

const CONFIG_NAMES = ['probe.config.mjs', 'probe.config.js', 'probe.config.cjs', 'probe.config.json'];

/** `PROBE_CONFIG`, else the nearest `probe.config.*` from the process's package folder up to the app root. */
function findConfigFile(configDirs: string[], cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (env.PROBE_CONFIG) {
    const file = path.resolve(cwd, env.PROBE_CONFIG);
    if (!existsSync(file)) throw new ProbeConfigError('PROBE_CONFIG', `no file at ${file}`);
    return file;
  }
  for (const dir of configDirs) {
    for (const name of CONFIG_NAMES) {
      const file = path.join(dir, name);
      if (existsSync(file)) return file;
    }
  }
  return null;
}

/**
 * Reads and resolves the config synchronously, so the preload can decide before the app's first line runs.
 * ESM config files load through `require(esm)` (Node 20.19+); a config with top-level await is refused
 * with a clear error. A JavaScript config is tried on a worker thread first (configTrial.ts): one that hangs,
 * ends the process or throws is a ProbeConfigError naming the file, and is never run on this thread. Whatever
 * reading it throws (a getter) is one too.
 */
export function loadConfig(options: { cwd?: string; env?: NodeJS.ProcessEnv; overrides?: ProbeConfig; trial?: boolean } = {}): ResolvedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const { root, configDirs } = findAppRoot(cwd, env);
  const configFile = findConfigFile(configDirs, cwd, env);
  if (configFile && !configFile.endsWith('.json') && options.trial !== false && !require.cache[configFile]) {
    const failure = configTrialFailure(configFile, mtimeOf(configFile), env);
    if (failure) throw new ProbeConfigError(path.basename(configFile), failure);
  }
  try {
    const file = configFile ? readConfigFile(configFile) : {};
    return resolveConfig({ root, configFile, file: mergeConfig(file, options.overrides), env, cwd });
  } catch (error) {
    if (error instanceof ProbeConfigError || !configFile) throw error;
    throw new ProbeConfigError(path.basename(configFile), `threw when read: ${messageOf(error)}`, { cause: error });
  }
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function readConfigFile(file: string): ProbeConfig {
  const setting = path.basename(file);
  if (file.endsWith('.json')) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ProbeConfigError(setting, `unreadable: ${(error as Error).message}`, { cause: error });
    }
    try {
      return JSON.parse(text) as ProbeConfig;
    } catch (error) {
      const at = /position (\d+)/.exec((error as Error).message);
      const line = at ? ` on line ${text.slice(0, Number(at[1])).split('\n').length}` : '';
      throw new ProbeConfigError(setting, `invalid JSON${line}: ${(error as Error).message}`, { cause: error });
    }
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = require(file) as Record<string, unknown>;
  } catch (error) {
    throw new ProbeConfigError(setting, loadFailure(file, error), { cause: error });
  }
  const config = (loaded && typeof loaded === 'object' && 'default' in loaded ? loaded.default : loaded) as ProbeConfig;
  if (config === null || typeof config !== 'object') throw new ProbeConfigError(setting, 'must export a config object (export default defineConfig({...}))');
  const register = loaded.register ?? config.register;
  const { default: _ignored, ...rest } = config as ProbeConfig & { default?: unknown };
  return typeof register === 'function' ? { ...rest, register: register as ProbeConfig['register'] } : rest;
}
