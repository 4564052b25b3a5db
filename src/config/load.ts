import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import type { ProbeConfig, ResolvedConfig } from './types';
import { ProbeConfigError } from './ProbeConfigError';
import { resolveConfig } from './resolve';
import { mergeConfig } from './merge';
import { findAppRoot } from './appRoot';

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
 * with a clear error.
 */
export function loadConfig(options: { cwd?: string; env?: NodeJS.ProcessEnv; overrides?: ProbeConfig } = {}): ResolvedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const { root, configDirs } = findAppRoot(cwd, env);
  const configFile = findConfigFile(configDirs, cwd, env);
  const file = configFile ? readConfigFile(configFile) : {};
  return resolveConfig({ root, configFile, file: mergeConfig(file, options.overrides), env });
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
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof SyntaxError) {
      const line = syntaxErrorLine(file, error);
      throw new ProbeConfigError(setting, `syntax error${line ? ` on line ${line}` : ''}: ${error.message}`, { cause: error });
    }
    const why = code === 'ERR_REQUIRE_ASYNC_MODULE' ? 'uses top-level await, which a preload cannot wait for' : (error as Error).message;
    throw new ProbeConfigError(setting, `could not be loaded: ${why}`, { cause: error });
  }
  const config = (loaded && typeof loaded === 'object' && 'default' in loaded ? loaded.default : loaded) as ProbeConfig;
  if (config === null || typeof config !== 'object') throw new ProbeConfigError(setting, 'must export a config object (export default defineConfig({...}))');
  const register = loaded.register ?? config.register;
  const { default: _ignored, ...rest } = config as ProbeConfig & { default?: unknown };
  return typeof register === 'function' ? { ...rest, register: register as ProbeConfig['register'] } : rest;
}

/**
 * The line of a syntax error in a config file. CommonJS puts `file:line` atop the stack; an ES module loaded
 * through require(esm) does not (Node 20), so the file is checked once more with `node --check`, which
 * does. Only on this error path.
 */
function syntaxErrorLine(file: string, error: SyntaxError): number | null {
  const fromStack = new RegExp(`^${escapeRegExp(file)}:(\\d+)`).exec(error.stack ?? '');
  if (fromStack) return Number(fromStack[1]);
  try {
    const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 10_000 });
    const match = /:(\d+)\s*$/m.exec(String(check.stderr).split('\n')[0] ?? '');
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
