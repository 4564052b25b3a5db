import type { ProbeConfig } from './types';

/** Identity helper that gives a config file type checking and completion. */
export function defineConfig(config: ProbeConfig): ProbeConfig {
  return config;
}
