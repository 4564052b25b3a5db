import { StoreError } from '../store/StoreError';

/**
 * The one line a command prints when the store cannot be read (Redis down or at a wrong address, a capture
 * folder this user may not read): the store's own message names the URL or folder, and what to do when it knows.
 * Null for other errors.
 */
export function storeFailure(error: unknown): string | null {
  if (!(error instanceof StoreError) && !String((error as { code?: unknown })?.code ?? '').startsWith('PROBE_STORE_')) return null;
  const message = String((error as Error).message ?? error).replace(/\s*\n\s*/g, ' ');
  // A message that already says what could not be done stands alone.
  return /^cannot (read|write) /.test(message) ? message : `cannot read the store: ${message}`;
}
