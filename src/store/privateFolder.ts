import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Captures hold request bodies and headers: their folders are 0700 and their files 0600 (FileStore creates files
 * with that mode, which a umask can only narrow). The umask can widen nothing here: a folder made is set to 0700
 * exactly.
 */
export const FOLDER_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Makes `folder` and the folders above it that are missing, each 0700 whatever the umask. */
export function makePrivateFolder(folder: string): void {
  const first = mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
  if (first === undefined) return;
  // mkdir's mode goes through the umask; chmod does not (only a umask with owner bits set could narrow it).
  for (let each = folder; ; each = path.dirname(each)) {
    chmodSync(each, FOLDER_MODE);
    if (each === first || path.dirname(each) === each) break;
  }
}

/**
 * Tightens folders an older version (or the umask) left open to other users: each of `folders` that is a real
 * folder (links are left alone) with group or other bits becomes 0700, and then the regular files of `captures`
 * with such bits become 0600. Returns what it did in one phrase, or null when nothing was loose (the usual case,
 * two lstat calls: the files are looked at only when a folder was loose, since a 0700 folder already keeps them
 * from other users). Never throws: a folder that is not ours stays as it is.
 */
export function tightenOnce(folders: string[], captures: string): string | null {
  let loose = 0;
  for (const folder of folders) {
    try {
      const info = lstatSync(folder, { throwIfNoEntry: false });
      if (!info?.isDirectory() || (info.mode & 0o077) === 0) continue;
      chmodSync(folder, FOLDER_MODE);
      loose++;
    } catch {
      // not ours to change
    }
  }
  if (!loose) return null;
  let files = 0;
  let names: string[] = [];
  try {
    names = readdirSync(captures);
  } catch {
    // nothing listed: nothing to tighten
  }
  for (const name of names) if (tightenFile(path.join(captures, name))) files++;
  return `${loose} folder(s) set to 0700${files ? ` and ${files} file(s) to 0600` : ''}`;
}

/** One regular file (opened without following a link, never blocking on a FIFO) set to 0600 when open to others. */
function tightenFile(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return false;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || (info.mode & 0o077) === 0) return false;
    fchmodSync(fd, info.mode & FILE_MODE);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
