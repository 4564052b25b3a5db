import type { ProbeConfig, ResolvedConfig } from './types';
import { Masker } from '../mask/Masker';
import { defaultSettings, ENV_SETTINGS, type Defaults } from './defaults';
import { buildMaskers } from './maskers';
import { guardExcept } from './guardUserParts';
import { isPlainObject } from './describe';
import { mergeSettings } from './merge';
import type * as Schema from './schema';
import { plainSettings } from './plainSettings';
import { envServiceName } from './serviceName';

export interface ResolveInput {
  root: string;
  configFile: string | null;
  file: ProbeConfig;
  env: NodeJS.ProcessEnv;
  /** The process's working directory: its nearest package names the service (serviceName.ts). */
  cwd?: string;
}

/**
 * Defaults → file → environment → frozen. The file and the environment are validated (and their values
 * compiled) by the schema, the one validator; it throws a ProbeConfigError naming the setting.
 */
export function resolveConfig({ root, configFile, file, env, cwd }: ResolveInput): ResolvedConfig {
  const given = needsSchema(file, env)
    ? (plainSettings(file, env) ?? (require('./schema') as typeof Schema).validateSettings(file, env, root))
    : { file: {}, env: {} };
  const settings = mergeSettings(mergeSettings(defaultSettings(root, env, cwd), given.file), given.env) as Defaults;
  const maskers = buildMaskers(settings.mask);
  const lens = settings.lenses.HttpClientLens;
  return deepFreeze({
    root,
    configFile,
    enabled: settings.enabled,
    service: envServiceName(env) ?? settings.service,
    storage: settings.storage,
    http:
      lens === false
        ? null
        : {
            bodies: lens.bodies,
            max_body_bytes: lens.max_body_bytes,
            max_rows: lens.max_rows,
            response_types: lens.capture.response_types,
            masker: maskers.lens,
          },
    masker: maskers.global,
    origin: settings.origin,
    sampling: { rate: settings.sampling.rate, maxPerSecond: settings.sampling.max_per_second },
    background: { windowMs: settings.background.window_seconds * 1000 },
    findings: { nPlusOne: settings.findings.n_plus_one },
    snapshots: settings.snapshots,
    // A RegExp of the user's runs over every request's name on the app's thread: under a deadline, off it.
    except: settings.except.map((pattern) => (pattern instanceof RegExp ? guardExcept(pattern) : pattern)),
    register: settings.register,
  });
}

/** Sections `probe install`'s template leaves empty. */
const SECTIONS = new Set<keyof ProbeConfig>(['storage', 'lenses', 'mask', 'origin', 'sampling', 'background', 'findings', 'snapshots']);

/**
 * False when nothing is set: a file with no key or only empty sections, and no Probe environment variable.
 * Then the schema is not loaded: zod costs every process start tens of milliseconds, launchers included.
 */
function needsSchema(file: unknown, env: NodeJS.ProcessEnv): boolean {
  if (!isPlainObject(file)) return true;
  if (ENV_SETTINGS.some((name) => env[name] !== undefined)) return true;
  return Object.entries(file).some(
    ([key, value]) => value !== undefined && !(SECTIONS.has(key as keyof ProbeConfig) && isPlainObject(value) && Object.keys(value).length === 0),
  );
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !(value instanceof RegExp) && !(value instanceof Masker)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
