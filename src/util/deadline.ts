/** The error a call to a user-supplied part gets when it has not settled in time. */
class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  readonly code = 'PROBE_DEADLINE';
}

/**
 * Settles with `work`, or rejects with a DeadlineError after `ms`: a store written by a user can hang without
 * holding Probe's flush or the app's exit (BatchSpanProcessorBase gives every export a timeout the same way).
 * The timer does not keep the process alive.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(`${what} did not settle within ${ms} ms`)), ms);
    timer.unref?.();
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
