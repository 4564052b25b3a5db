import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Why this process's user cannot store captures in `folder` (it, or the nearest folder above it that exists, is
 * not writable for them), in one sentence with the fixes; null when it can. Never throws.
 */
export function unwritableFolder(folder: string): string | null {
  let at = path.resolve(folder);
  for (;;) {
    try {
      accessSync(at, constants.W_OK);
      return null;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const parent = path.dirname(at);
      if (code === 'ENOENT' && parent !== at) {
        at = parent;
        continue;
      }
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return null;
      return `${at} is not writable for ${userName()} (${String(code)}), so apps run as this user store nothing in ${folder}. Make it writable, or set PROBE_ROOT to a folder you can write.`;
    }
  }
}

function userName(): string {
  try {
    return `user ${os.userInfo().username}`;
  } catch {
    return 'this user';
  }
}
