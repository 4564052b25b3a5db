/** The error a call to a user-supplied part gets when it has not settled in time. */
class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  readonly code = 'PROBE_DEADLINE';
}

export interface DeadlineOptions {
  /** The error to reject with; by default a DeadlineError saying `what` did not settle within `ms`. */
  error?: () => Error;
  /**
   * Keep the process alive while waiting. Off by default: a deadline must never hold an app's exit. On only
   * where the work itself does not hold the process but must be waited for: the Redis driver unrefs its
   * socket (an idle connection must not keep a finished app alive), so a pending connect, write or read is
   * held open by its deadline's timer alone, for at most its deadline.
   */
  ref?: boolean;
}

/**
 * Settles with `work`, or rejects after `ms` (a DeadlineError, or `options.error()`): a store written by a user,
 * or a Redis that stopped answering, can hang without holding Probe's flush or the app's exit
 * (BatchSpanProcessorBase gives every export a timeout the same way).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string, options: DeadlineOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(options.error ? options.error() : new DeadlineError(`${what} did not settle within ${ms} ms`)), ms);
    if (!options.ref) timer.unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
