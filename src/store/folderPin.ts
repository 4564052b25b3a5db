import { lstatSync, readlinkSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * The identity (device and inode) of the capture folder and of each folder from `<root>/.probe` down to it, taken
 * when the store starts using the folder. Node has no `openat`, so a write cannot be made relative to a folder
 * descriptor: instead the store compares these identities before each batch of writes and before each delete. A
 * folder replaced while the app runs (a `git checkout` that swaps `.probe/captures` for a committed link, a rename)
 * has another identity and stops the store; a folder removed is made again. The chain is read with lstat (links
 * not followed: a link swapped in has an inode of its own), the capture folder also through links (an allowed link
 * inside `.probe` whose target was swapped).
 */
export interface FolderPin {
  chain: Array<{ folder: string; dev: number; ino: number }>;
  real: { dev: number; ino: number };
}

/** The folders whose identity is pinned: `within` and each one below it down to `folder` (only `folder` when outside it). */
export function chainOf(folder: string, within: string | undefined): string[] {
  if (within === undefined || (folder !== within && !folder.startsWith(within + path.sep))) return [folder];
  const chain = [within];
  for (const part of path.relative(within, folder).split(path.sep).filter(Boolean)) chain.push(path.join(chain.at(-1)!, part));
  return chain;
}

/** The folder's pin now, or null when a folder of the chain does not exist. */
export function pinFolder(folder: string, within: string | undefined): FolderPin | null {
  const chain: FolderPin['chain'] = [];
  for (const each of chainOf(folder, within)) {
    const info = lstatSync(each, { throwIfNoEntry: false });
    if (!info) return null;
    chain.push({ folder: each, dev: info.dev, ino: info.ino });
  }
  const real = statSync(folder, { throwIfNoEntry: false });
  if (!real?.isDirectory()) return null;
  return { chain, real: { dev: real.dev, ino: real.ino } };
}

export const MISSING = 'missing';

/**
 * What changed since `pin`: null when every folder is the one pinned, MISSING when one was removed (the store
 * makes it again), else one line saying which folder was replaced and by what.
 */
export function pinChange(pin: FolderPin): string | null {
  for (const { folder, dev, ino } of pin.chain) {
    const info = lstatSync(folder, { throwIfNoEntry: false });
    if (!info) return MISSING;
    if (info.dev !== dev || info.ino !== ino) return replaced(folder, info);
  }
  const last = pin.chain.at(-1)!.folder;
  const real = statSync(last, { throwIfNoEntry: false });
  if (!real) return MISSING;
  if (real.dev !== pin.real.dev || real.ino !== pin.real.ino) return `${last} now leads to another folder than the one Probe opened`;
  return null;
}

function replaced(folder: string, info: Stats): string {
  if (!info.isSymbolicLink()) return `${folder} was replaced by another ${info.isDirectory() ? 'folder' : 'file'} while the app ran`;
  let target = '';
  try {
    target = ` to ${readlinkSync(folder)}`;
  } catch {
    // gone meanwhile
  }
  return `${folder} was replaced by a link${target} while the app ran`;
}
