import { existsSync } from 'node:fs';
import path from 'node:path';
import { StoreError } from './StoreError';

/** File system codes that mean this user may not use the folder: nothing changes until a person does something. */
const DENIED = new Set(['EACCES', 'EPERM', 'EROFS']);

/** True for a file system error that says this user may not read or write there. */
export function isDenied(error: unknown): boolean {
  return DENIED.has(String((error as NodeJS.ErrnoException)?.code ?? ''));
}

/**
 * A failed capture write told about the capture folder, never about the temp file the write was creating (a name
 * no person knows): `PROBE_STORE_UNWRITABLE` with the folder that refused and what to do when this user may not
 * write it, `PROBE_STORE_WRITE` with the system's reason otherwise (a full disk). A StoreError passes as it is.
 */
export function writeFailure(folder: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const reason = reasonOf(error);
  if (!isDenied(error)) return new StoreError('PROBE_STORE_WRITE', `cannot write captures to ${folder}: ${reason}`);
  const refused = nearestExisting(folder);
  const readOnly = (error as NodeJS.ErrnoException).code === 'EROFS';
  const what = readOnly ? `${refused} is on a read-only file system (${reason})` : `${refused} is not writable by this user (${reason})`;
  const fix = readOnly ? 'set PROBE_ROOT=<a writable folder>' : 'make it writable for this user, or set PROBE_ROOT=<a writable folder>';
  return new StoreError('PROBE_STORE_UNWRITABLE', `cannot write captures to ${folder}: ${what}; ${fix}`);
}

/**
 * A failed read of the capture folder (`probe list` run by another user than the app's): `PROBE_STORE_UNREADABLE`
 * naming the folder that refused and what to do, `PROBE_STORE_READ` with the system's reason otherwise.
 */
export function readFailure(folder: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const reason = reasonOf(error);
  if (!isDenied(error)) return new StoreError('PROBE_STORE_READ', `cannot read captures in ${folder}: ${reason}`);
  return new StoreError(
    'PROBE_STORE_UNREADABLE',
    `cannot read captures in ${folder}: ${nearestExisting(folder)} is not readable by this user (${reason}); ` +
      'run probe as the user the app runs as, or make the folder readable for this user',
  );
}

/** Node's message is `CODE: reason, syscall 'path'`: the path may be a temp file's; the reason is what counts. */
function reasonOf(error: unknown): string {
  return String((error as Error)?.message ?? error).replace(/,\s[a-z]+\b.*$/s, '');
}

/** The folder itself, or the nearest folder above it that this user can see: the one whose permissions refused. */
function nearestExisting(folder: string): string {
  let each = folder;
  while (!existsSync(each) && path.dirname(each) !== each) each = path.dirname(each);
  return each;
}
