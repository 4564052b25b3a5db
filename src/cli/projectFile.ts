import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { MAX_MANIFEST_BYTES, readSafeText, SafeReadError } from '../util/safeRead';

/**
 * The files `probe install` reads and writes in a project, never through a link: a repository can commit
 * `.gitignore`, `.vscode` or a file in it as a link to any file of the machine, and writing through it would
 * change that file. Every folder on the way is checked with lstat, and files are opened with O_NOFOLLOW
 * (O_NONBLOCK: a FIFO planted under the name cannot hold the command).
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

export type ProjectFile = { text: string | null } | { refused: string };

/** Why `file` (relative to `root`, `/`-separated) must not be touched, or null: a link on its path, or not a regular file. */
function refusal(root: string, file: string): string | null {
  let at = root;
  for (const part of file.split('/')) {
    at = path.join(at, part);
    const info = lstatSync(at, { throwIfNoEntry: false });
    if (!info) return null;
    const name = path.relative(root, at);
    if (info.isSymbolicLink()) return name === file ? 'a link' : `${name} is a link`;
    if (at !== path.join(root, file) && !info.isDirectory()) return `${name} is not a folder`;
    if (at === path.join(root, file)) {
      if (!info.isFile()) return 'not a regular file';
      if (info.nlink > 1) return 'it has other hard links';
    }
  }
  return null;
}

/** The text of `root/file` (null when missing), or why it is left alone. */
export function readProjectFile(root: string, file: string): ProjectFile {
  const why = refusal(root, file);
  if (why) return { refused: why };
  try {
    return { text: readSafeText(path.join(root, file), { maxBytes: MAX_MANIFEST_BYTES }) };
  } catch (error) {
    if (error instanceof SafeReadError)
      return { refused: error.code === 'PROBE_FILE_TOO_LARGE' ? `larger than ${MAX_MANIFEST_BYTES} bytes` : 'not a regular file' };
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: null };
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { refused: 'a link' };
    throw error;
  }
}

/**
 * Writes `text` to `root/file`: the folders on the way made one by one (none may be a link), a new file created
 * (O_EXCL: never a link or file that appeared meanwhile), an existing one rewritten in place (O_NOFOLLOW, checked
 * regular before it is truncated). Throws what refused it.
 */
export function writeProjectFile(root: string, file: string, text: string): void {
  const why = refusal(root, file);
  if (why) throw new Error(`${file} not written: ${why}`);
  const parts = file.split('/');
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    try {
      mkdirSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!lstatSync(at).isDirectory()) throw new Error(`${file} not written: ${path.relative(root, at)} is not a folder`);
    }
  }
  const full = path.join(root, file);
  let fd: number;
  try {
    fd = openSync(full, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    fd = openSync(full, constants.O_WRONLY | NOFOLLOW | NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile() || info.nlink > 1) {
      closeSync(fd);
      throw new Error(`${file} not written: not a regular file of its own`);
    }
    ftruncateSync(fd, 0);
  }
  try {
    const data = Buffer.from(text, 'utf8');
    for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done, done);
  } finally {
    closeSync(fd);
  }
}
