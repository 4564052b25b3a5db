import { z } from 'zod';
import { ProbeConfigError } from './ProbeConfigError';
import { unknownSetting } from './suggest';
import { describe, isPlainObject, settingName } from './describe';
import { STORAGE_KEYS } from './defaults';

/*
 * The shape of a config file, checked once before anything is resolved: every object is strict, so a typo
 * at any depth is one error naming it and the closest valid key. Values whose check needs more than a shape
 * (a mask class, a capture class, a regex that must compile, a path inside .probe) are checked in resolve.ts.
 */

/** Strict object whose unknown-key issue carries the valid keys of that level (read by `toConfigError`). */
function strict<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape).filter((key) => key !== 'default');
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? JSON.stringify(known) : undefined) });
}

const bool = z.boolean({ error: 'expected true or false' });
const text = z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' });
const wholeAtLeast = (min: number) => {
  const error = `expected a whole number ≥ ${min}`;
  return z.number({ error }).int({ error }).min(min, { error });
};
const pattern = z.union([text, z.instanceof(RegExp)], { error: 'expected a regex string or RegExp' });
const patterns = z.array(pattern, { error: 'expected an array of regex strings or RegExps' });

const redis = strict({ url: text, prefix: text, ttl: wholeAtLeast(1) })
  .partial()
  .nullish();

const storage = z
  .object({
    driver: text,
    limit: wholeAtLeast(1),
    file: strict({ path: text }).partial().nullish(),
    redis,
    cache: redis,
  })
  .partial()
  .catchall(z.custom<Record<string, unknown>>((value) => isPlainObject(value), { params: { driverSettings: true } }))
  .nullish();

const lensOptions = strict({
  bodies: bool,
  max_body_bytes: wholeAtLeast(0),
  max_rows: wholeAtLeast(0),
  capture: strict({ response_types: z.record(z.string(), z.unknown(), { error: 'expected an object of content-type pattern → capture class' }) })
    .partial()
    .nullish(),
}).partial();

const lensInputs = strict({ HttpClientLens: patterns }).partial();
const inputs = z.union([z.array(z.union([pattern, lensInputs])), strict({ '*': z.union([pattern, patterns]), HttpClientLens: patterns }).partial()], {
  error: 'expected an array of patterns',
});

const sampling = strict({
  rate: z
    .number({ error: 'expected a number from 0 to 1' })
    .min(0, { error: 'expected a number from 0 to 1' })
    .max(1, { error: 'expected a number from 0 to 1' }),
  max_per_second: z
    .number({ error: 'expected a positive number' })
    .positive({ error: 'expected a positive number' })
    .finite({ error: 'expected a positive number' }),
})
  .partial()
  .nullish();

const configSchema = strict({
  enabled: bool,
  service: text,
  storage,
  lenses: strict({ HttpClientLens: z.union([bool, lensOptions], { error: 'expected true, false or an options object' }) })
    .partial()
    .nullish(),
  mask: strict({ headers: z.record(z.string(), z.unknown(), { error: 'expected an object of header name → mask' }).nullish(), inputs })
    .partial()
    .nullish(),
  origin: strict({ enabled: bool }).partial().nullish(),
  sampling,
  background: strict({
    window_seconds: z.number({ error: 'expected a number of seconds ≥ 1' }).min(1, { error: 'expected a number of seconds ≥ 1' }).finite(),
  })
    .partial()
    .nullish(),
  except: z.array(z.union([z.string(), z.instanceof(RegExp)], { error: 'expected a glob string or RegExp' }), {
    error: 'expected an array of globs or RegExps',
  }),
  register: z.custom<(...args: unknown[]) => unknown>((value) => typeof value === 'function', { error: 'expected a function' }),
  default: z.unknown(),
}).partial();

/** Checks a config file's shape; the first problem is thrown as one ProbeConfigError naming the setting. */
export function validateConfig(input: unknown): void {
  const result = configSchema.safeParse(input);
  if (!result.success) throw toConfigError(result.error.issues[0]!, [], input);
}

type Issue = z.core.$ZodIssue;

function toConfigError(issue: Issue, prefix: PropertyKey[], input: unknown): ProbeConfigError {
  const at = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union') {
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
  return new ProbeConfigError(settingName(at), `${issue.message}, got ${describe(valueAt(input, at))}`);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}
