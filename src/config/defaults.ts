import { FullMask } from '../mask/FullMask';
import { JsonCapture } from '../response/JsonCapture';
import { EventStreamCapture } from '../response/EventStreamCapture';
import type { Mask } from '../mask/Mask';
import { SecretWords } from '../mask/SecretWords';
import type { ResponseCaptureClass } from '../response/ResponseCapture';

export const DEFAULT_LIMIT = 200;
export const DEFAULT_FILE_PATH = '.probe/captures';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_REDIS_PREFIX = 'probe:';
export const DEFAULT_REDIS_TTL = 86_400;
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
export const DEFAULT_MAX_ROWS = 1000;

/** Built-in storage keys; any other key is a custom driver's settings, checked when the store is made. */
export const STORAGE_KEYS: readonly string[] = ['driver', 'limit', 'file', 'redis'];

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
