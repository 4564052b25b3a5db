/** A store fault with a stable code (`PROBE_STORE_*`) and the underlying error as `cause`. */
export class StoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
    cause?: unknown,
  ) {
    super(cause instanceof Error ? `${message}: ${cause.message}` : message, cause === undefined ? undefined : { cause });
    this.name = 'StoreError';
  }
}
