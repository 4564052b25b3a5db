import { FullMask } from '../mask/FullMask';
import { JsonCapture } from '../response/JsonCapture';
import { EventStreamCapture } from '../response/EventStreamCapture';
import type { Mask } from '../mask/Mask';
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
 * Field, query and form names whose values are masked, matched as whole names in any case and any of
 * snake_case, camelCase or kebab-case (SecretNames): `api_key` covers `apiKey`, `API-KEY`; `token` does
 * not cover `prompt_tokens` or `NextToken`. The README lists them and says where they differ from
 * dd-trace's and Sentry's.
 */
export const DEFAULT_INPUTS: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth_token',
  'session_token', // AWS temporary credentials (SessionToken)
  'csrf_token',
  'xsrf_token',
  'api_key',
  'apikey',
  'secret_key', // Cognito's SecretKey
  'secret_access_key', // AWS SecretAccessKey
  'private_key',
  'license_key', // New Relic
  'authorization',
  'credit_card',
  'card_number',
  'cvv',
  'cvc', // Stripe's card[cvc]
  'signature',
  'sig', // Azure SAS
  'x_amz_signature', // S3 presigned URLs
  'x_amz_credential',
  'x_amz_security_token',
  'x_goog_signature', // Google Cloud Storage signed URLs
  'x_goog_credential',
];

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
