import type { ProbeConfig, ResolvedConfig } from '../config/types';
import type { Logger } from '../util/logger';
import type { Store } from '../capture/Store';
import { loadConfig } from '../config/load';
import { ProbeConfigError } from '../config/ProbeConfigError';
import { messageOf } from '../config/loadFailure';
import { createStore, extendStore } from './registry';
import { buildSourceOf } from './buildSource';
import { setUserPartsSource } from '../config/UserPartsRunner';
import { warmUserParts } from '../config/guardUserParts';

export interface OpenStoreOptions {
  /** Where the app root is looked for (default: the process's cwd). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** `start(overrides)`: merged over the config file. */
  overrides?: ProbeConfig;
  logger: Logger;
  /**
   * The store an app records into: none when `enabled` is false, and file writes on a worker thread. The CLI,
   * MCP server, dashboard and exit writer read or write on their own thread.
   */
  recording?: boolean;
}

export interface OpenedStore<S extends Store | null = Store> {
  config: ResolvedConfig;
  store: S;
}

/**
 * The config and store every part of Probe uses, made one way: the config from the app root, the user's
 * `register()` (custom drivers must exist before the store is made), then the configured store. A config
 * error throws a ProbeConfigError naming the setting.
 */
export function openStore(options: OpenStoreOptions & { recording: true }): OpenedStore<Store | null>;
export function openStore(options: OpenStoreOptions & { recording?: false }): OpenedStore;
export function openStore(options: OpenStoreOptions): OpenedStore<Store | null>;
export function openStore(options: OpenStoreOptions): OpenedStore<Store | null> {
  const config = loadConfig({ cwd: options.cwd, env: options.env, overrides: options.overrides });
  if (options.recording && !config.enabled) return { config, store: null };
  try {
    config.register?.({ extendStore });
  } catch (error) {
    if (error instanceof ProbeConfigError) throw error;
    throw new ProbeConfigError('register', `threw: ${messageOf(error)}`, { cause: error });
  }
  let build = null;
  if (options.recording) {
    const source = buildSourceOf(config, options.cwd ?? process.cwd(), options.env ?? process.env, options.overrides);
    if (typeof source === 'string') options.logger.debug(`building captures on the app thread: ${source}`);
    else build = source;
    // The user's masks and name patterns run on a thread of their own, loaded from the same source.
    setUserPartsSource(build);
    warmUserParts();
  }
  const store = createStore({ root: config.root, config, logger: options.logger }, { writeThread: options.recording, build });
  return { config, store };
}
