import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { HttpClientLensOptions, InputPattern, ProbeConfig, ResolvedConfig, ResolvedHttpLens, ResolvedResponseType } from './types';
import type { Mask, MaskSpec } from '../mask/Mask';
import type { ResponseCaptureClass } from '../response/ResponseCapture';
import { ProbeConfigError } from './ProbeConfigError';
import {
  DEFAULT_FILE_PATH,
  DEFAULT_INPUTS,
  DEFAULT_LIMIT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_ROWS,
  DEFAULT_REDIS_PREFIX,
  DEFAULT_REDIS_TTL,
  DEFAULT_REDIS_URL,
  defaultHeaderMasks,
  defaultSecretWords,
  defaultResponseTypes,
} from './defaults';
import { FullMask } from '../mask/FullMask';
import { PartialMask } from '../mask/PartialMask';
import { Masker } from '../mask/Masker';
import { SecretNames } from '../mask/SecretNames';
import { compileGlob } from '../util/glob';
import { describe, isPlainObject } from './describe';
import { guardCapture, guardMask } from './guardUserParts';
import type * as Schema from './schema';

const LENS = 'HttpClientLens';

export interface ResolveInput {
  root: string;
  configFile: string | null;
  file: ProbeConfig;
  env: NodeJS.ProcessEnv;
}

/** Defaults → file → environment → validated → frozen. Throws ProbeConfigError naming the setting. */
export function resolveConfig({ root, configFile, file, env }: ResolveInput): ResolvedConfig {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) {
    throw new ProbeConfigError('config', `expected an object, got ${describe(file)}`);
  }
  // The shape (unknown keys at any depth, types, ranges) is checked here once; what follows only fills defaults.
  if (hasSettings(file)) (require('./schema') as typeof Schema).validateConfig(file);

  const enabled = env.PROBE_ENABLED !== undefined ? parseBool('PROBE_ENABLED', env.PROBE_ENABLED) : optBool('enabled', file.enabled, true);
  const storageIn = optObject('storage', file.storage) as NonNullable<ProbeConfig['storage']>;
  const driver = env.PROBE_STORAGE || optString('storage.driver', storageIn.driver, 'file');
  const limit = optInt('storage.limit', storageIn.limit, DEFAULT_LIMIT, 1);

  const fileIn = optObject('storage.file', storageIn.file) as { path?: unknown };
  const probeDir = path.resolve(root, '.probe');
  const filePath = path.resolve(root, optString('storage.file.path', fileIn.path, DEFAULT_FILE_PATH));
  if (filePath !== probeDir && !filePath.startsWith(probeDir + path.sep)) {
    throw new ProbeConfigError('storage.file.path', `must resolve inside ${probeDir}, got ${filePath}`);
  }

  const redisIn = optObject('storage.redis', storageIn.redis ?? storageIn.cache) as { url?: unknown; prefix?: unknown; ttl?: unknown };
  const redisUrl = optString('storage.redis.url', redisIn.url, env.REDIS_URL || DEFAULT_REDIS_URL);
  if (!/^rediss?:\/\//.test(redisUrl)) throw new ProbeConfigError('storage.redis.url', `must start with redis:// or rediss://, got ${redisUrl}`);
  const redis = {
    url: redisUrl,
    prefix: optString('storage.redis.prefix', redisIn.prefix, DEFAULT_REDIS_PREFIX),
    ttl: optInt('storage.redis.ttl', redisIn.ttl, DEFAULT_REDIS_TTL, 1),
  };

  const headerGlobal = defaultHeaderMasks();
  // `false` also keeps the word rule off that header (SecretWords masks `x-session-token` without a listing).
  const unmaskedGlobal = new Set<string>();
  const headerLens = new Map<string, Mask | false>();
  const headersIn = optObject('mask.headers', file.mask?.headers);
  for (const [name, spec] of Object.entries(headersIn)) {
    if (name === LENS) {
      for (const [lensName, lensSpec] of Object.entries(optObject(`mask.headers.${LENS}`, spec))) {
        headerLens.set(lensName.toLowerCase(), lensSpec === false ? false : toMask(`mask.headers.${LENS}.${lensName}`, lensSpec));
      }
    } else if (spec === false) {
      headerGlobal.delete(name.toLowerCase());
      unmaskedGlobal.add(name.toLowerCase());
    } else {
      headerGlobal.set(name.toLowerCase(), toMask(`mask.headers.${name}`, spec as MaskSpec));
    }
  }
  const headerForLens = new Map(headerGlobal);
  const unmaskedForLens = new Set(unmaskedGlobal);
  for (const [name, mask] of headerLens) {
    if (mask === false) {
      headerForLens.delete(name);
      unmaskedForLens.add(name);
    } else {
      headerForLens.set(name, mask);
      unmaskedForLens.delete(name);
    }
  }

  const { global: inputsGlobal, lens: inputsLens } = splitInputs(file.mask?.inputs);
  const globalInputs = compileInputs(inputsGlobal, { names: [...DEFAULT_INPUTS], patterns: [] });
  const lensInputs = compileInputs(inputsLens, { names: [...globalInputs.names], patterns: [...globalInputs.patterns] });
  const words = defaultSecretWords();
  const secretHeaders = new SecretNames(DEFAULT_INPUTS, [], words);
  const masker = new Masker(headerGlobal, new SecretNames(globalInputs.names, globalInputs.patterns, words), secretHeaders, unmaskedGlobal);

  const lensesIn = optObject('lenses', file.lenses);
  const http = resolveHttpLens(
    lensesIn[LENS] as boolean | HttpClientLensOptions | undefined,
    new Masker(headerForLens, new SecretNames(lensInputs.names, lensInputs.patterns, words), secretHeaders, unmaskedForLens),
  );

  const originIn = optObject('origin', file.origin) as { enabled?: unknown };
  const except = (file.except ?? []).map((item) => (item instanceof RegExp ? item : compileGlob(item)));
  const samplingIn = optObject('sampling', file.sampling) as { rate?: number; max_per_second?: number };
  const sampling = {
    rate: env.PROBE_SAMPLE_RATE !== undefined ? parseRate(env.PROBE_SAMPLE_RATE) : (samplingIn.rate ?? 1),
    maxPerSecond: samplingIn.max_per_second ?? null,
  };

  const backgroundIn = optObject('background', file.background) as { window_seconds?: number };
  const background = { windowMs: (backgroundIn.window_seconds ?? 300) * 1000 };

  const customStorage: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(storageIn)) {
    if (!['driver', 'limit', 'file', 'redis', 'cache'].includes(key)) customStorage[key] = value;
  }

  return deepFreeze({
    root,
    configFile,
    enabled,
    service: optString('service', file.service, packageName(root)),
    storage: { ...customStorage, driver: driver === 'cache' ? 'redis' : driver, limit, file: { path: filePath }, redis },
    http,
    masker,
    origin: { enabled: optBool('origin.enabled', originIn.enabled, true) },
    sampling,
    background,
    except,
    register: file.register ?? null,
  }) as ResolvedConfig;
}

function resolveHttpLens(input: boolean | HttpClientLensOptions | undefined, masker: Masker): ResolvedHttpLens | null {
  const setting = `lenses.${LENS}`;
  if (input === false) return null;
  const options = input === undefined || input === true ? {} : (optObject(setting, input) as HttpClientLensOptions);
  const typesIn = optObject(`${setting}.capture`, options.capture).response_types;
  const types =
    typesIn === undefined ? defaultResponseTypes() : (optObject(`${setting}.capture.response_types`, typesIn) as Record<string, ResponseCaptureClass>);
  const response_types: ResolvedResponseType[] = Object.entries(types).map(([pattern, capture]) => {
    const name = `${setting}.capture.response_types['${pattern}']`;
    if (typeof capture !== 'function' || !capture.name) throw new ProbeConfigError(name, 'expected a capture class with a static name');
    if (typeof capture.capture !== 'function' && typeof capture.prototype?.capture !== 'function') {
      throw new ProbeConfigError(name, `${capture.name} has no capture() method`);
    }
    return { pattern, matcher: compileGlob(pattern, { ignoreCase: true }), capture: guardCapture(name, capture) };
  });
  return {
    bodies: optBool(`${setting}.bodies`, options.bodies, false),
    max_body_bytes: optInt(`${setting}.max_body_bytes`, options.max_body_bytes, DEFAULT_MAX_BODY_BYTES, 0),
    max_rows: optInt(`${setting}.max_rows`, options.max_rows, DEFAULT_MAX_ROWS, 0),
    response_types,
    masker,
  };
}

/** The user's patterns, each with its place in the user's own list (`mask.inputs[2]`), global or for the lens. */
function splitInputs(input: unknown): { global: Array<[string, InputPattern]>; lens: Array<[string, InputPattern]> } {
  const global: Array<[string, InputPattern]> = [];
  const lens: Array<[string, InputPattern]> = [];
  const add = (into: Array<[string, InputPattern]>, setting: string, value: unknown) => {
    if (Array.isArray(value)) value.forEach((p, i) => into.push([`${setting}[${i}]`, p as InputPattern]));
    else if (value !== undefined) into.push([setting, value as InputPattern]);
  };
  if (Array.isArray(input)) {
    input.forEach((item, i) => {
      if (item && typeof item === 'object' && !(item instanceof RegExp)) add(lens, `mask.inputs[${i}].${LENS}`, (item as Record<string, unknown>)[LENS]);
      else global.push([`mask.inputs[${i}]`, item as InputPattern]);
    });
  } else if (input && typeof input === 'object') {
    add(global, "mask.inputs['*']", (input as Record<string, unknown>)['*']);
    add(lens, `mask.inputs.${LENS}`, (input as Record<string, unknown>)[LENS]);
  }
  return { global, lens };
}

/** A name made of these is a plain name (whole-name rule); any other string is a regular expression. */
const PLAIN_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Adds a config's `mask.inputs` entries to `into`: a plain-name string is a name, normalised like the
 * defaults (SecretNames); a RegExp, or a string with any other character (`^pin$`, the form a JSON config
 * can hold), is the user's own pattern, tested against the name as given (a string case-insensitively).
 */
function compileInputs(inputs: Array<[string, InputPattern]>, into: { names: string[]; patterns: RegExp[] }): { names: string[]; patterns: RegExp[] } {
  inputs.forEach(([at, input]) => {
    if (input instanceof RegExp) into.patterns.push(new RegExp(input.source, input.flags.replace(/[gy]/g, '')));
    else if (typeof input !== 'string' || input === '') throw new ProbeConfigError(at, `expected a name, a regex string or a RegExp, got ${describe(input)}`);
    else if (PLAIN_NAME.test(input)) into.names.push(input);
    else {
      try {
        into.patterns.push(new RegExp(input, 'i'));
      } catch (error) {
        throw new ProbeConfigError(at, `malformed regex ${JSON.stringify(input)}: ${(error as Error).message}`, { cause: error });
      }
    }
  });
  return into;
}

const BUILTIN_MASKS: Record<string, new () => Mask> = { FullMask, PartialMask };

function isBuiltinMask(mask: object): boolean {
  const proto = Object.getPrototypeOf(mask);
  return proto === FullMask.prototype || proto === PartialMask.prototype;
}

function toMask(setting: string, spec: unknown): Mask {
  if (typeof spec === 'string') {
    const Builtin = BUILTIN_MASKS[spec];
    if (!Builtin)
      throw new ProbeConfigError(setting, `unknown mask ${JSON.stringify(spec)} (known: FullMask, PartialMask, or a class/object with mask(value))`);
    return new Builtin();
  }
  if (typeof spec === 'function') {
    const instance = new (spec as new () => Mask)();
    if (typeof instance.mask !== 'function') throw new ProbeConfigError(setting, `${spec.name || 'class'} has no mask(value) method`);
    return isBuiltinMask(instance) ? instance : guardMask(setting, instance);
  }
  if (spec && typeof spec === 'object' && typeof (spec as Mask).mask === 'function')
    return isBuiltinMask(spec) ? (spec as Mask) : guardMask(setting, spec as Mask);
  throw new ProbeConfigError(setting, `expected FullMask, PartialMask or an object with mask(value), got ${describe(spec)}`);
}

function optObject(setting: string, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ProbeConfigError(setting, `expected an object, got ${describe(value)}`);
  return value as Record<string, unknown>;
}

function optBool(setting: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ProbeConfigError(setting, `expected true or false, got ${describe(value)}`);
  return value;
}

function parseBool(setting: string, value: string): boolean {
  const lower = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(lower)) return false;
  throw new ProbeConfigError(setting, `expected true or false, got ${JSON.stringify(value)}`);
}

function optString(setting: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '') throw new ProbeConfigError(setting, `expected a non-empty string, got ${describe(value)}`);
  return value;
}

function optInt(setting: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ProbeConfigError(setting, `expected a whole number ≥ ${min}, got ${describe(value)}`);
  }
  return value;
}

const SECTIONS = new Set(['storage', 'lenses', 'mask', 'origin', 'sampling', 'background']);

/**
 * False for a config with nothing set: no key, or only empty sections (the file `probe install` writes).
 * Then the schema is not loaded: zod costs every process start tens of milliseconds, launchers included.
 */
function hasSettings(file: object): boolean {
  return Object.entries(file).some(([key, value]) => value !== undefined && !(SECTIONS.has(key) && isPlainObject(value) && Object.keys(value).length === 0));
}

function parseRate(value: string): number {
  const rate = value.trim() === '' ? NaN : Number(value);
  if (!(rate >= 0 && rate <= 1)) throw new ProbeConfigError('PROBE_SAMPLE_RATE', `expected a number from 0 to 1, got ${JSON.stringify(value)}`);
  return rate;
}

function packageName(root: string): string {
  try {
    const name = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).name;
    if (typeof name === 'string' && name) return name;
  } catch {
    // No readable package.json: fall back to the folder's name.
  }
  return path.basename(root);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !(value instanceof RegExp) && !(value instanceof Masker)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
