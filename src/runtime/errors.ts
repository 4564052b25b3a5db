import type { ErrorInput } from '../builder/input';

/** Class, message, code and the `cause` chain of what the app's call failed with. */
export function errorInput(error: unknown): ErrorInput {
  const top = link(error);
  const causes: ErrorInput['causes'] = [];
  const seen = new Set<unknown>([error]);
  let current = (error as { cause?: unknown } | null)?.cause;
  while (current !== undefined && current !== null && !seen.has(current) && causes.length < 10) {
    seen.add(current);
    causes.push(link(current));
    current = (current as { cause?: unknown }).cause;
  }
  return { ...top, causes };
}

function link(error: unknown): ErrorInput['causes'][number] {
  if (isDomException(error)) {
    // An aborted fetch rejects with a DOMException: its name (AbortError, TimeoutError) says what happened;
    // its numeric code (20, 23) is a legacy constant nobody matches on.
    return { class: error.name || 'DOMException', message: String(error.message ?? ''), code: null };
  }
  if (error instanceof Error || (error && typeof error === 'object' && 'message' in error)) {
    const e = error as Error & { code?: unknown };
    const name = e.constructor?.name && e.constructor.name !== 'Object' ? e.constructor.name : e.name || 'Error';
    return { class: name, message: String(e.message ?? ''), code: e.code === undefined || e.code === null ? null : String(e.code) };
  }
  return { class: typeof error, message: String(error), code: null };
}

function isDomException(error: unknown): error is DOMException {
  if (typeof DOMException === 'function' && error instanceof DOMException) return true;
  // A DOMException from another realm (a vm context, a second copy of undici's) fails instanceof.
  return !!error && typeof error === 'object' && (error as object).constructor?.name === 'DOMException';
}
