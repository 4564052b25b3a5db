import { FullMask } from '../mask/FullMask';
import { JsonCapture } from '../response/JsonCapture';
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

export const DEFAULT_MASKED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-auth-token',
];

export const DEFAULT_INPUTS: readonly string[] = [
  'password',
  'secret',
  'token',
  'api_key',
  'access_token',
  'refresh_token',
  'client_secret',
  'credit_card',
];

export function defaultHeaderMasks(): Map<string, Mask> {
  const full = new FullMask();
  return new Map(DEFAULT_MASKED_HEADERS.map((name) => [name, full]));
}

export function defaultResponseTypes(): Record<string, ResponseCaptureClass> {
  return {
    'application/json': JsonCapture as unknown as ResponseCaptureClass,
    'application/*+json': JsonCapture as unknown as ResponseCaptureClass,
  };
}
