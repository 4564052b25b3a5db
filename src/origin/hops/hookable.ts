import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import { findPackage, readManifest } from '../../util/manifest';
import { inOwnTree, ownTree } from '../../util/ownTree';

/**
 * Probe hooks nothing it has not proven safe. A package learned to hop, or named in the learned list, is hooked
 * only when it is an npm package of the app: never a Node built-in (a hook there wraps every user of it, the
 * whole process's EventEmitter for `events`), never Probe's own code or a package of Probe's own dependency tree
 * (Probe runs those from inside its hooks: a hook there calls itself), and, for a name read from the list, only a
 * package the app's node_modules hold at that exact version (a name the app does not have is no library of its).
 */

const realFolders = new Map<string, string>();

/** A folder's real path (node_modules links resolved: pnpm, workspaces), remembered. */
export function realFolder(folder: string): string {
  let real = realFolders.get(folder);
  if (real === undefined) {
    try {
      real = fs.realpathSync(folder);
    } catch {
      real = folder;
    }
    realFolders.set(folder, real);
  }
  return real;
}

/** Whether a package folder is Probe's or of its dependency tree (its frames are Probe's, never a library to hook). */
export function isOwnPackage(folder: string): boolean {
  return inOwnTree(realFolder(folder));
}

/** Whether a name is one of Node's built-in modules (with or without `node:`; `test` is one only as `node:test`). */
export function isBuiltinName(name: string): boolean {
  return isBuiltin(name) || isBuiltin(`node:${name}`);
}

/**
 * Why a package named in the learned list may not be hooked, or null when it may: the folder `require(name)`
 * finds from the app's root holds that name at that exact version, and is not Probe's.
 */
export function refusal(name: string, version: string, root: string): string | null {
  if (isBuiltinName(name)) return 'a Node built-in';
  if (ownTree().versions.has(`${name}@${version}`)) return "one of Probe's own dependencies";
  const folder = findPackage(name, root);
  if (!folder) return 'not installed';
  if (inOwnTree(folder)) return "one of Probe's own dependencies";
  const manifest = readManifest(folder);
  if (!manifest || manifest.name !== name) return 'not installed';
  if (manifest.version !== version) return `installed at another version`;
  return null;
}
