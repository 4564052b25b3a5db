import fs from 'node:fs';
import { readSafeText } from './safeRead';
import path from 'node:path';

/**
 * A package's `package.json`, read as data about a folder Probe did not make: a regular file (util/safeRead: never
 * blocking on a FIFO; reached through a link, as pnpm's packages are) of at most MAX_BYTES, parsed as JSON. Anything
 * else is null, never thrown.
 */
export interface Manifest {
  name?: unknown;
  version?: unknown;
  dependencies?: unknown;
  optionalDependencies?: unknown;
  peerDependencies?: unknown;
}

/** The largest manifest read (npm's own are a few KiB; a generated one with long `files` lists, tens). */
const MAX_BYTES = 512 * 1024;

export function readManifest(folder: string): Manifest | null {
  try {
    const parsed = JSON.parse(readSafeText(path.join(folder, 'package.json'), { maxBytes: MAX_BYTES, follow: true })) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Manifest) : null;
  } catch {
    return null;
  }
}

/** What a walk over many packages has looked up already: the `node_modules` folders there are, the packages found. */
export interface LookupCache {
  folders: Map<string, boolean>;
  found: Map<string, string | null>;
}

export function lookupCache(): LookupCache {
  return { folders: new Map(), found: new Map() };
}

/**
 * The folder `require(name)` would find from `from`: the first `node_modules/<name>` holding a package.json on the
 * way up (Node's own lookup, without NODE_PATH or the global folders), as its real path; null when none.
 */
export function findPackage(name: string, from: string, cache: LookupCache = lookupCache()): string | null {
  for (let dir = path.resolve(from); ;) {
    // Node skips a `node_modules` folder's own `node_modules/node_modules` on the way up.
    if (path.basename(dir) !== 'node_modules') {
      const modules = path.join(dir, 'node_modules');
      let there = cache.folders.get(modules);
      if (there === undefined) cache.folders.set(modules, (there = isFolder(modules)));
      if (there) {
        const candidate = path.join(modules, ...name.split('/'));
        let found = cache.found.get(candidate);
        if (found === undefined) cache.found.set(candidate, (found = packageFolder(candidate)));
        if (found) return found;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function isFolder(folder: string): boolean {
  try {
    return fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** The real path of a folder holding a package.json, or null. */
function packageFolder(candidate: string): string | null {
  try {
    return fs.statSync(path.join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile() ? fs.realpathSync.native(candidate) : null;
  } catch {
    return null;
  }
}
