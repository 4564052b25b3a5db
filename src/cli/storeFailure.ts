import { StoreError } from '../store/StoreError';

/**
 * The one line a command prints when the store cannot be read (Redis down or at a wrong address, a capture
 * folder that cannot be listed): the store's own message names the URL or folder. Null for other errors.
 */
export function storeFailure(error: unknown): string | null {
  if (!(error instanceof StoreError) && !String((error as { code?: unknown })?.code ?? '').startsWith('PROBE_STORE_')) return null;
  const message = String((error as Error).message ?? error).replace(/\s*\n\s*/g, ' ');
  return `cannot read the store: ${message}`;
}
