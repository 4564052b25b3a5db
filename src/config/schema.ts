import path from 'node:path';
import { z } from 'zod';
import { ProbeConfigError } from './ProbeConfigError';
import { unknownSetting } from './suggest';
import { describe, isPlainObject, settingName } from './describe';
import { ENV_SETTINGS, STORAGE_KEYS, type StorageKey } from './defaults';
import type { Mask } from '../mask/Mask';
import { validIgnorePath } from '../util/ignorePaths';
import { ruleBroken, toGlob, toInputRule, toMask, toResponseType, type HeaderMasks, type InputRules, type RuleParams } from './userParts';

/*
 * The one validator of a config: every setting's type, range and rule is here, and each value is turned into
 * what Probe runs (masks, patterns, capture classes, globs, the capture folder) as it is checked. Every object
 * is strict, so a typo at any depth is one error naming it and the closest valid key. resolve.ts only lays
 * the validated file and environment over the defaults.
 */

const LENS = 'HttpClientLens';

/** Strict object whose unknown-key issue carries the valid keys of that level (read by `toConfigError`). */
function strict<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape).filter((key) => key !== 'default');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? JSON.stringify(known) : issue.code === 'invalid_type' ? 'expected an object' : undefined),
  });
}

/** A section the user may leave out or set to null: both mean "the defaults". */
function section<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

const bool = z.boolean({ error: 'expected true or false' });
const text = z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' });
const wholeAtLeast = (min: number) => {
  const error = `expected a whole number ≥ ${min}`;
  return z.number({ error }).int({ error }).min(min, { error });
};
const rateError = 'expected a number from 0 to 1';
const rate = z.number({ error: rateError }).min(0, { error: rateError }).max(1, { error: rateError });

/** `cache` is an alias of `redis`. */
const driver = text.transform((name) => (name === 'cache' ? 'redis' : name));

const redis = section(
  strict({
    url: text.refine((url) => /^rediss?:\/\//.test(url), { error: 'must start with redis:// or rediss://' }),
    prefix: text,
    ttl: wholeAtLeast(1),
  }).partial(),
);

/** The capture folder, resolved against the app root; it must stay inside `<root>/.probe`. */
function captureFolder(root: string) {
  const probeDir = path.resolve(root, '.probe');
  return text.transform((given, ctx) => {
    const resolved = path.resolve(root, given);
    if (resolved === probeDir || resolved.startsWith(probeDir + path.sep)) return resolved;
    ruleBroken(ctx, given, [], `must resolve inside ${probeDir}, got ${resolved}`);
    return z.NEVER;
  });
}

function storage(root: string) {
  // `satisfies` keeps this shape and STORAGE_KEYS (read where the store is made, without zod) one list.
  const known = {
    driver,
    limit: wholeAtLeast(1),
    test_limit: wholeAtLeast(1),
    file: section(strict({ path: captureFolder(root) }).partial()),
    redis,
    cache: redis,
  } satisfies Record<StorageKey | 'cache', z.ZodType>;
  return section(
    z
      .object(known)
      .partial()
      .catchall(z.custom<Record<string, unknown>>((value) => isPlainObject(value), { params: { driverSettings: true } }))
      .transform(({ cache, ...rest }) => (rest.redis === undefined && cache !== undefined ? { ...rest, redis: cache } : rest)),
  );
}

const responseTypes = z
  .record(z.string(), z.unknown(), { error: 'expected an object of content-type pattern → capture class' })
  .transform((types, ctx) =>
    Object.entries(types).flatMap(([pattern, capture]) => toResponseType(pattern, capture, `lenses.${LENS}.capture.response_types['${pattern}']`, ctx) ?? []),
  );

const lensOptions = strict({
  bodies: bool,
  max_body_bytes: wholeAtLeast(0),
  max_rows: wholeAtLeast(0),
  capture: section(strict({ response_types: responseTypes }).partial()),
}).partial();

const headers = z.record(z.string(), z.unknown(), { error: 'expected an object of header name → mask' }).transform((given, ctx): HeaderMasks => {
  const masks: HeaderMasks = { global: new Map(), lens: new Map() };
  const add = (into: Map<string, Mask | false>, name: string, spec: unknown, at: string[]) => {
    const mask = spec === false ? false : toMask(spec, settingName(['mask', 'headers', ...at]), ctx, at);
    if (mask !== undefined) into.set(name.toLowerCase(), mask);
  };
  for (const [name, spec] of Object.entries(given)) {
    if (name !== LENS) add(masks.global, name, spec, [name]);
    else if (spec && typeof spec === 'object' && !Array.isArray(spec))
      for (const [lensName, lensSpec] of Object.entries(spec)) add(masks.lens, lensName, lensSpec, [LENS, lensName]);
    else ruleBroken(ctx, spec, [LENS], 'expected an object', false);
  }
  return masks;
});

const rule = z.union([text, z.instanceof(RegExp)], { error: 'expected a regex string or RegExp' }).transform(toInputRule);
const rules = z.array(rule, { error: 'expected an array of regex strings or RegExps' });
const inputs = z
  .union([z.array(z.union([rule, strict({ HttpClientLens: rules }).partial()])), strict({ '*': z.union([rule, rules]), HttpClientLens: rules }).partial()], {
    error: 'expected an array of patterns',
  })
  .transform((given): InputRules => {
    if (!Array.isArray(given)) {
      const all = given['*'];
      return { global: all === undefined ? [] : Array.isArray(all) ? all : [all], lens: given.HttpClientLens ?? [] };
    }
    const split: InputRules = { global: [], lens: [] };
    for (const item of given) {
      if ('name' in item || 'pattern' in item) split.global.push(item);
      else split.lens.push(...(item.HttpClientLens ?? []));
    }
    return split;
  });

const sampling = section(
  strict({
    rate,
    max_per_second: z
      .number({ error: 'expected a positive number' })
      .positive({ error: 'expected a positive number' })
      .finite({ error: 'expected a positive number' }),
  }).partial(),
);

const except = z
  .array(z.union([z.string(), z.instanceof(RegExp)], { error: 'expected a glob string or RegExp' }), { error: 'expected an array of globs or RegExps' })
  .transform((patterns, ctx) => patterns.map((item, i) => (item instanceof RegExp ? item : (toGlob(item, ctx, [i]) ?? z.NEVER))));

/** `probe check`'s settings (docs/snapshots.md): hosts a test may reach, request headers kept, what is left out. */
const lowerNames = (error: string) => z.array(text, { error }).transform((names) => names.map((name) => name.toLowerCase()));
const snapshots = section(
  strict({
    hosts: lowerNames("expected an array of host names ('loopback', 'private', 'api.test', '*.internal.example')"),
    headers: lowerNames('expected an array of request header names'),
    ignore: z.array(
      text.refine((entry) => !entry.startsWith('$') || validIgnorePath(entry), { error: "a JSON path such as '$.created_at' or '$.items[*].id'" }),
      {
        error: "expected an array of JSON paths ('$.created_at') and header names",
      },
    ),
    bodies: z.enum(['values', 'shapes'], { error: "expected 'values' or 'shapes'" }),
  }).partial(),
);

function settingsSchema(root: string) {
  return strict({
    enabled: bool,
    service: text,
    storage: storage(root),
    lenses: section(
      strict({
        HttpClientLens: z.union([bool.transform((on) => (on ? {} : false)), lensOptions], { error: 'expected true, false or an options object' }),
      }).partial(),
    ),
    mask: section(strict({ headers: section(headers), inputs }).partial()),
    origin: section(strict({ enabled: bool }).partial()),
    sampling,
    background: section(
      strict({
        window_seconds: z.number({ error: 'expected a number of seconds ≥ 1' }).min(1, { error: 'expected a number of seconds ≥ 1' }).finite(),
      }).partial(),
    ),
    findings: section(strict({ n_plus_one: wholeAtLeast(2) }).partial()),
    snapshots,
    except,
    register: z.custom<(...args: unknown[]) => unknown>((value) => typeof value === 'function', { error: 'expected a function' }),
    default: z.unknown(),
  }).partial();
}

/** The environment variables that override the file, each turned into the setting it overrides. */
const envSchema = z
  .object({
    PROBE_ENABLED: z.string().transform((value, ctx) => {
      const lower = value.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(lower)) return false;
      ruleBroken(ctx, value, [], 'expected true or false', false);
      return z.NEVER;
    }),
    // An empty PROBE_STORAGE leaves the file's driver.
    PROBE_STORAGE: z
      .string()
      .transform((value) => value || undefined)
      .pipe(driver.optional()),
    PROBE_SAMPLE_RATE: z
      .string()
      .transform((value) => (value.trim() === '' ? NaN : Number(value)))
      .pipe(rate),
  } satisfies Record<(typeof ENV_SETTINGS)[number], z.ZodType>)
  .partial()
  .transform((env) => ({ enabled: env.PROBE_ENABLED, storage: { driver: env.PROBE_STORAGE }, sampling: { rate: env.PROBE_SAMPLE_RATE } }));

/** A config file's settings once validated: values in the form Probe runs them, sections absent or whole. */
export type Settings = z.output<ReturnType<typeof settingsSchema>>;
export type EnvSettings = z.output<typeof envSchema>;

/** Validates the file's settings and the environment's overrides; the first problem is one ProbeConfigError. */
export function validateSettings(file: unknown, env: NodeJS.ProcessEnv, root: string): { file: Settings; env: EnvSettings } {
  const fileResult = settingsSchema(root).safeParse(file);
  if (!fileResult.success) throw toConfigError(fileResult.error.issues[0]!, [], file);
  const given = Object.fromEntries(ENV_SETTINGS.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
  const envResult = envSchema.safeParse(given);
  if (!envResult.success) throw toConfigError(envResult.error.issues[0]!, [], given);
  return { file: fileResult.data, env: envResult.data };
}

type Issue = z.core.$ZodIssue;

const ruleOf = (issue: Issue): RuleParams | null =>
  issue.code === 'custom' && (issue.params as RuleParams | undefined)?.rule ? (issue.params as RuleParams) : null;

/** The first broken rule anywhere under a union, with its full path: the value the user meant got that far. */
function ruleIn(issue: Issue, prefix: PropertyKey[]): { issue: Issue; at: PropertyKey[] } | null {
  const at = [...prefix, ...issue.path];
  if (ruleOf(issue)) return { issue, at };
  if (issue.code !== 'invalid_union') return null;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const found = ruleIn(inner, at);
      if (found) return found;
    }
  }
  return null;
}

function toConfigError(issue: Issue, prefix: PropertyKey[], input: unknown): ProbeConfigError {
  const at = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union') {
    const broken = ruleIn(issue, prefix);
    if (broken) return toConfigError({ ...broken.issue, path: [] }, broken.at, input);
    // The branch that got past the type check is the one the user meant: report its issue.
    const typeOnly = (i: Issue) => i.code === 'invalid_type' && i.path.length === 0;
    const meant = issue.errors.map((branch) => branch.find((i) => !typeOnly(i))).find(Boolean);
    if (meant) return toConfigError(meant, at, input);
  }
  if (issue.code === 'unrecognized_keys') {
    const known = JSON.parse(issue.message) as string[];
    return unknownSetting([...at, issue.keys[0]!], known);
  }
  if (issue.code === 'custom' && (issue.params as { driverSettings?: boolean } | undefined)?.driverSettings) {
    return unknownSetting(at, [...STORAGE_KEYS], 'or the settings object of a driver registered with extendStore');
  }
  if (ruleOf(issue)?.whole) return new ProbeConfigError(settingName(at), issue.message);
  return new ProbeConfigError(settingName(at), `${issue.message}, got ${describe(valueAt(input, at))}`);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}
