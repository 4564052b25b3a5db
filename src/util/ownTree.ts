import fs from 'node:fs';
import path from 'node:path';
import { PROBE_CODE_DIR } from './ownCode';
import { findPackage, lookupCache, readManifest, type Manifest } from './manifest';

/**
 * Probe's own dependency tree: the folders its package.json's dependencies (and theirs, down to the last) resolve
 * to from Probe's install folder, as real paths, whether npm hoisted them into the app's node_modules or nested
 * them under Probe's; with each one's `name@version`. Probe runs these packages from inside its own hooks (the
 * async context manager, the instrumentation base), so a hook on one of them would run inside itself. Walked once,
 * on first use: only a run that learns a package or reads a learned list pays for it.
 */
export interface OwnTree {
  /** Real paths of the package folders, Probe's own included. */
  folders: ReadonlySet<string>;
  /** `name@version` of each. */
  versions: ReadonlySet<string>;
}

/** Far more than Probe's tree holds (about 130 packages): a bound on a malformed install, not a limit in use. */
const MAX_FOLDERS = 4096;

let tree: OwnTree | undefined;

export function ownTree(): OwnTree {
  return (tree ??= dependencyTree(path.resolve(PROBE_CODE_DIR, '..')));
}

/** Whether a package folder (a real path) is Probe's or one of its dependencies'. */
export function inOwnTree(folder: string): boolean {
  return ownTree().folders.has(folder);
}

/** A package folder and the folders its dependencies resolve to from there, down to the last. */
export function dependencyTree(root: string): OwnTree {
  const folders = new Set<string>();
  const versions = new Set<string>();
  let start = root;
  try {
    start = fs.realpathSync(root);
  } catch {
    // kept as resolved
  }
  const cache = lookupCache();
  const queue = [start];
  while (queue.length > 0 && folders.size < MAX_FOLDERS) {
    const folder = queue.pop()!;
    if (folders.has(folder)) continue;
    folders.add(folder);
    const manifest = readManifest(folder);
    if (!manifest) continue;
    if (typeof manifest.name === 'string' && typeof manifest.version === 'string') versions.add(`${manifest.name}@${manifest.version}`);
    for (const name of dependencyNames(manifest)) {
      const found = findPackage(name, folder, cache);
      if (found && !folders.has(found)) queue.push(found);
    }
  }
  return { folders, versions };
}

/** What an install puts beside a package for it: its dependencies, optional and peer ones (npm 7 installs those). */
function dependencyNames(manifest: Manifest): string[] {
  const names = new Set<string>();
  for (const field of [manifest.dependencies, manifest.optionalDependencies, manifest.peerDependencies])
    if (field && typeof field === 'object' && !Array.isArray(field)) for (const name of Object.keys(field)) names.add(name);
  return [...names];
}
