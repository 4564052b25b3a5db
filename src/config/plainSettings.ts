import type { EnvSettings, Settings } from './schema';
import { isPlainObject } from './describe';

/*
 * Settings whose values are plain scalars (`sampling.rate: 0.1`, `origin.enabled: false`, `storage.limit: 500`)
 * are read here without loading the schema: zod costs every process start about 40 ms of CPU, which a test
 * runner's process per file pays again and again. Only values that are surely valid are taken, and they come out
 * exactly as the schema gives them (the test config/plainSettings.test.ts compares both on every case); anything
 * else (masks, patterns, response types, a capture folder, Redis settings, a register function, a value out of
 * range) returns null, and the schema, the one validator, checks it and words the error.
 */

type Check = (value: unknown) => boolean;

const bool: Check = (value) => typeof value === 'boolean';
const text: Check = (value) => typeof value === 'string' && value.length > 0;
const wholeAtLeast =
  (min: number): Check =>
  (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min;
const rate: Check = (value) => typeof value === 'number' && value >= 0 && value <= 1;
const positive: Check = (value) => typeof value === 'number' && value > 0 && Number.isFinite(value);
const atLeastOneFinite: Check = (value) => typeof value === 'number' && value >= 1 && Number.isFinite(value);

/** The sections taken here, each setting with the check its schema makes (config/schema.ts). */
const SECTIONS: Record<string, Record<string, Check>> = {
  storage: { driver: text, limit: wholeAtLeast(1) },
  origin: { enabled: bool },
  sampling: { rate, max_per_second: positive },
  background: { window_seconds: atLeastOneFinite },
  findings: { n_plus_one: wholeAtLeast(2) },
};
const TOP: Record<string, Check> = { enabled: bool, service: text };
const LENS_OPTIONS: Record<string, Check> = { bodies: bool, max_body_bytes: wholeAtLeast(0), max_rows: wholeAtLeast(0) };

/** `cache` is an alias of `redis`, as in the schema. */
const driverName = (name: string) => (name === 'cache' ? 'redis' : name);

/** Only the keys given, each checked; null when one is not a scalar this file takes. */
function scalars(given: unknown, checks: Record<string, Check>): Record<string, unknown> | null {
  if (!isPlainObject(given)) return null;
  for (const [key, value] of Object.entries(given)) {
    if (!Object.hasOwn(checks, key) || !checks[key]!(value)) return null;
  }
  return { ...given };
}

function plainFile(file: unknown): Settings | null {
  if (!isPlainObject(file)) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(file)) {
    if (Object.hasOwn(TOP, key)) {
      if (!TOP[key]!(value)) return null;
      out[key] = value;
    } else if (Object.hasOwn(SECTIONS, key)) {
      // A section left null means its defaults, as `section()` in the schema.
      if (value === null) {
        out[key] = undefined;
        continue;
      }
      const section = scalars(value, SECTIONS[key]!);
      if (!section) return null;
      if (key === 'storage' && typeof section.driver === 'string') section.driver = driverName(section.driver);
      out[key] = section;
    } else if (key === 'lenses') {
      if (value === null) {
        out[key] = undefined;
        continue;
      }
      if (!isPlainObject(value)) return null;
      const lenses: Record<string, unknown> = {};
      for (const [name, lens] of Object.entries(value)) {
        if (name !== 'HttpClientLens') return null;
        if (typeof lens === 'boolean') lenses[name] = lens ? {} : false;
        else {
          const options = scalars(lens, LENS_OPTIONS);
          if (!options) return null;
          lenses[name] = options;
        }
      }
      out[key] = lenses;
    } else {
      return null;
    }
  }
  return out as Settings;
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off', ''];

function plainEnv(env: NodeJS.ProcessEnv): EnvSettings | null {
  let enabled: boolean | undefined;
  if (env.PROBE_ENABLED !== undefined) {
    const lower = env.PROBE_ENABLED.trim().toLowerCase();
    if (TRUE_WORDS.includes(lower)) enabled = true;
    else if (FALSE_WORDS.includes(lower)) enabled = false;
    else return null;
  }
  // An empty PROBE_STORAGE leaves the file's driver.
  const driver = env.PROBE_STORAGE ? driverName(env.PROBE_STORAGE) : undefined;
  let sampleRate: number | undefined;
  if (env.PROBE_SAMPLE_RATE !== undefined) {
    const value = env.PROBE_SAMPLE_RATE.trim() === '' ? NaN : Number(env.PROBE_SAMPLE_RATE);
    if (!rate(value)) return null;
    sampleRate = value;
  }
  return { enabled, storage: { driver }, sampling: { rate: sampleRate } };
}

/** The file's and the environment's settings as the schema would give them, or null when the schema must look. */
export function plainSettings(file: unknown, env: NodeJS.ProcessEnv): { file: Settings; env: EnvSettings } | null {
  const fromFile = plainFile(file);
  if (!fromFile) return null;
  const fromEnv = plainEnv(env);
  return fromEnv ? { file: fromFile, env: fromEnv } : null;
}
