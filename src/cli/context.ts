import type { CliIo } from './io';
import type { ResolvedConfig } from '../config/types';
import type { Store } from '../capture/Store';
import { ProbeConfigError } from '../config/ProbeConfigError';
import { openStore } from '../store/openStore';
import { createLogger } from '../util/logger';
import { terminalText } from '../util/terminalText';

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
    return openStore({ cwd: io.cwd, env: io.env, logger: createLogger((line) => io.err(line)) });
  } catch (error) {
    if (error instanceof ProbeConfigError) {
      io.err(`probe: bad configuration: ${terminalText(error.message)}`);
      return null;
    }
    throw error;
  }
}

export async function closeContext(context: CliContext): Promise<void> {
  await context.store.close?.();
}
