import path from 'node:path';
import { FullMask } from '../mask/FullMask';
import { JsonCapture } from '../response/JsonCapture';
import { EventStreamCapture } from '../response/EventStreamCapture';
import type { Mask } from '../mask/Mask';
import { SecretWords } from '../mask/SecretWords';
import type { ResponseCaptureClass } from '../response/ResponseCapture';
import { compileGlob, type Glob } from '../util/glob';
import type { RegisterApi, ResolvedResponseType } from './types';
import type { HeaderMasks, InputRules } from './userParts';
import { defaultServiceName } from './serviceName';

export const DEFAULT_LIMIT = 200;
/** Test captures the file store keeps, counted apart from the others: a run of a suite of a few thousand tests. */
export const DEFAULT_TEST_LIMIT = 5000;
export const DEFAULT_FILE_PATH = '.probe/captures';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_REDIS_PREFIX = 'probe:';
export const DEFAULT_REDIS_TTL = 86_400;
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
export const DEFAULT_MAX_ROWS = 1000;
/** Hosts a test may call by default (docs/snapshots.md): loopback and private addresses. */
export const DEFAULT_SNAPSHOT_HOSTS = ['loopback', 'private'] as const;
/** Request headers a snapshot keeps by default (masked as stored). */
export const DEFAULT_SNAPSHOT_HEADERS = ['accept', 'authorization', 'content-type'] as const;
/** Calls in a row to one endpoint that the findings call an N+1. */
export const DEFAULT_N_PLUS_ONE = 5;

/** The environment variables that override a setting of the file (REDIS_URL is a default, below). */
export const ENV_SETTINGS = ['PROBE_ENABLED', 'PROBE_STORAGE', 'PROBE_SAMPLE_RATE'] as const;

const STORAGE_KEY_NAMES = ['driver', 'limit', 'test_limit', 'file', 'redis'] as const;
export type StorageKey = (typeof STORAGE_KEY_NAMES)[number];
/**
 * Built-in storage keys (the schema's storage shape is checked against this list); any other key is a custom
 * driver's settings, checked when the store is made.
 */
export const STORAGE_KEYS: readonly string[] = STORAGE_KEY_NAMES;

/** Headers whose values are credentials or sessions (names compared in lower case). */
const DEFAULT_MASKED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key', // Azure OpenAI
  'x-auth-token',
  'x-goog-api-key',
  'x-amz-security-token', // the session token of temporary AWS credentials
  'x-csrf-token',
  'x-xsrf-token',
];

/**
 * Field, query and form names masked as whole names, in any case and any of snake_case, camelCase or
 * kebab-case (SecretNames): `api_key` covers `apiKey`, `API-KEY`. Words that are secrets only on their own
 * (`key=`, `pass=`, `auth=`) are here; the word rule below covers the rest. The README lists both.
 */
export const DEFAULT_INPUTS: readonly string[] = [
  'pass',
  'key', // Google's `?key=AIza…`; `idempotency_key`, `sort_key`, `primary_key` stay readable
  'auth',
  'x_auth',
  'basic_auth',
  'proxy_auth',
  'session',
  'sig', // Azure SAS
  'credit_card',
  'card_number',
];

/**
 * The word rule (SecretWords): a field, query, form or header name whose last words are one of these is
 * masked (`newPassword`, `x-session-token`, `awsSecretAccessKey`, `webhook_secret`).
 */
export const DEFAULT_SECRET_ENDINGS: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'pw',
  'passphrase',
  'passcode',
  'passwords',
  'secret', // client_secret, webhook_secret, jwt_secret
  'secrets',
  'token', // access_token, x-session-token, private-token, apiToken, githubToken
  'apikey',
  'api_key',
  'access_key', // secret_access_key, awsSecretAccessKey (access_key_id stays readable)
  'secret_key',
  'private_key',
  'signing_key',
  'encryption_key',
  'master_key',
  'license_key', // New Relic
  'account_key', // Azure Storage
  'shared_key',
  'subscription_key', // Azure API Management
  'application_key', // Datadog
  'app_key',
  'client_key',
  'consumer_key',
  'auth_key',
  'session_key',
  'hmac_key',
  'authorization', // proxy-authorization
  'cookie', // set-cookie
  'cookies',
  'sessionid', // sessionid, jsessionid is one word: listed apart
  'session_id',
  'jsessionid',
  'phpsessid',
  'jwt',
  'otp',
  'totp',
  'pin',
  'credential', // x-amz-credential, x-goog-credential
  'signature', // x-amz-signature, x-goog-signature, x-hub-signature-256
  'cvv',
  'cvc', // Stripe's card[cvc]
];

/** Endings that keep a name readable though a shorter one is secret: cursors and tokenizer settings. */
export const DEFAULT_READABLE_ENDINGS: readonly string[] = [
  'next_token', // AWS NextToken
  'page_token', // Google nextPageToken
  'continuation_token', // S3 ContinuationToken
  'pagination_token',
  'starting_token',
  'sync_token',
  'cursor_token',
  'bos_token', // tokenizer settings (Hugging Face)
  'eos_token',
  'pad_token',
  'unk_token',
  'sep_token',
  'cls_token',
  'mask_token',
];

/** Trailing words read past before the endings: `password_confirmation`, `password2`, `password_hash`. */
export const DEFAULT_TRAILING_WORDS: readonly string[] = ['confirmation', 'confirm', 'repeat', 'again', 'hash', 'digest', 'encrypted', 'plain', 'plaintext'];

/** The built-in word rule over the lists above. */
export function defaultSecretWords(): SecretWords {
  return new SecretWords({ endings: DEFAULT_SECRET_ENDINGS, readable: DEFAULT_READABLE_ENDINGS, trailing: DEFAULT_TRAILING_WORDS });
}

export function defaultHeaderMasks(): Map<string, Mask> {
  const full = new FullMask();
  return new Map(DEFAULT_MASKED_HEADERS.map((name) => [name, full]));
}

export function defaultResponseTypes(): Record<string, ResponseCaptureClass> {
  return {
    'application/json': JsonCapture as unknown as ResponseCaptureClass,
    'application/*+json': JsonCapture as unknown as ResponseCaptureClass,
    'text/event-stream': EventStreamCapture as unknown as ResponseCaptureClass,
  };
}

/** Every setting with its value, in the form the schema turns a file's settings into (see resolve.ts). */
export interface Defaults {
  enabled: boolean;
  service: string;
  storage: {
    driver: string;
    limit: number;
    test_limit: number;
    file: { path: string };
    redis: { url: string; prefix: string; ttl: number };
    [driver: string]: unknown;
  };
  lenses: { HttpClientLens: false | { bodies: boolean; max_body_bytes: number; max_rows: number; capture: { response_types: ResolvedResponseType[] } } };
  /** Absent: the default masks are laid under the file's own by maskers.ts. */
  mask?: { headers?: HeaderMasks; inputs?: InputRules };
  origin: { enabled: boolean };
  sampling: { rate: number; max_per_second: number | null };
  background: { window_seconds: number };
  findings: { n_plus_one: number };
  snapshots: { hosts: string[]; headers: string[]; ignore: string[]; bodies: 'values' | 'shapes' };
  except: Array<RegExp | Glob>;
  register: ((probe: RegisterApi) => void) | null;
}

/** The settings of an app with no config file and no environment variables (REDIS_URL is the Redis default). */
export function defaultSettings(root: string, env: NodeJS.ProcessEnv, cwd?: string): Defaults {
  return {
    enabled: true,
    service: defaultServiceName(root, cwd),
    storage: {
      driver: 'file',
      limit: DEFAULT_LIMIT,
      test_limit: DEFAULT_TEST_LIMIT,
      file: { path: path.resolve(root, DEFAULT_FILE_PATH) },
      redis: { url: env.REDIS_URL || DEFAULT_REDIS_URL, prefix: DEFAULT_REDIS_PREFIX, ttl: DEFAULT_REDIS_TTL },
    },
    lenses: {
      HttpClientLens: {
        bodies: false,
        max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        max_rows: DEFAULT_MAX_ROWS,
        capture: {
          response_types: Object.entries(defaultResponseTypes()).map(([pattern, capture]) => ({
            pattern,
            matcher: compileGlob(pattern, { ignoreCase: true }),
            capture,
          })),
        },
      },
    },
    origin: { enabled: true },
    sampling: { rate: 1, max_per_second: null },
    background: { window_seconds: 300 },
    findings: { n_plus_one: DEFAULT_N_PLUS_ONE },
    snapshots: { hosts: [...DEFAULT_SNAPSHOT_HOSTS], headers: [...DEFAULT_SNAPSHOT_HEADERS], ignore: [], bodies: 'values' },
    except: [],
    register: null,
  };
}
