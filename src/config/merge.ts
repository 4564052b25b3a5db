import type { ProbeConfig } from './types';
import { isPlainObject } from './describe';

/**
 * `start(overrides)` over the file's config: plain objects merge key by key at every depth, so
 * `start({ storage: { limit: 5 } })` keeps the file's `storage.driver`; anything else (arrays, RegExps,
 * classes, mask instances) replaces what the file had.
 */
export function mergeConfig(base: ProbeConfig, overrides: ProbeConfig | undefined): ProbeConfig {
  return overrides === undefined ? base : (mergeValue(base, overrides) as ProbeConfig);
}

/** A layer of settings over the one below (defaults → file → environment), merged the same way. */
export function mergeSettings(base: object, over: object): object {
  return mergeValue(base, over) as object;
}

function mergeValue(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = mergeValue(base[key], value);
  return out;
}
