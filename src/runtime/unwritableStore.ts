import os from 'node:os';
import type { ResolvedConfig } from '../config/types';

/** The errors that say the user may not write there (permissions, a read-only file system), not a passing fault. */
const DENIED = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * The one line said when the file store's folder cannot be written by this process's user: the folder (not the
 * temporary file the write was trying to make), why, and the two fixes. Null for any other failure, which is said
 * as the error it is.
 */
export function unwritableLine(error: unknown, config: ResolvedConfig): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (config.storage.driver !== 'file' || typeof code !== 'string' || !DENIED.has(code)) return null;
  const folder = config.storage.file.path;
  const why = code === 'EROFS' ? 'a read-only file system' : `permission denied for ${userName()}`;
  return (
    `cannot write captures in ${folder} (${code}: ${why}); calls are not recorded. ` + `Make that folder writable, or set PROBE_ROOT to a folder you can write.`
  );
}

function userName(): string {
  try {
    return `user ${os.userInfo().username}`;
  } catch {
    return 'this user';
  }
}
