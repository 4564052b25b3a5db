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
  if (error instanceof Error || (error && typeof error === 'object' && 'message' in error)) {
    const e = error as Error & { code?: unknown };
    const name = e.constructor?.name && e.constructor.name !== 'Object' ? e.constructor.name : e.name || 'Error';
    return { class: name, message: String(e.message ?? ''), code: e.code === undefined || e.code === null ? null : String(e.code) };
  }
  return { class: typeof error, message: String(error), code: null };
}
