import type { CliIo } from './io';
import type { ResolvedConfig } from '../config/types';
import type { Store } from '../store/Store';
import { loadConfig } from '../config/load';
import { ProbeConfigError } from '../config/errors';
import { createStore, extendStore } from '../store/registry';
import { createLogger } from '../util/logger';

export interface CliContext {
  config: ResolvedConfig;
  store: Store;
}

/**
 * The same config and store the app uses, resolved from the app root. A config error is printed as one
 * line naming the setting and yields null (the command exits 2).
 */
export function openContext(io: CliIo): CliContext | null {
  try {
    const config = loadConfig({ cwd: io.cwd, env: io.env });
    config.register?.({ extendStore });
    const logger = createLogger((line) => io.err(line));
    return { config, store: createStore({ root: config.root, config, logger }) };
  } catch (error) {
    if (error instanceof ProbeConfigError) {
      io.err(`probe: bad configuration: ${error.message}`);
      return null;
    }
    throw error;
  }
}

export async function closeContext(context: CliContext): Promise<void> {
  await context.store.close?.();
}
