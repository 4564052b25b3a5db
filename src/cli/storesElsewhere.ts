import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_FILE_PATH } from '../config/defaults';
import { shellWord } from '../util/shellWord';
import { terminalText } from '../util/terminalText';

/** Folders never searched for a store: installed packages, version control, build output. */
const SKIPPED = new Set(['node_modules', '.git', '.yarn', '.next', '.nuxt', '.output', '.svelte-kit', 'dist', 'build']);
/** How deep below the root a package's own store is looked for (`packages/api`, `apps/web/server`). */
const DEPTH = 3;

/**
 * The file stores below an app root whose store is empty: captures that a process with a root of its own
 * (a package that is not one of the root's workspaces, a nested project, a process that ran with PROBE_ROOT)
 * wrote under its own folder. Named so that the person at the root is told where they went.
 */
export function storesBelow(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || SKIPPED.has(entry.name) || (entry.name.startsWith('.') && entry.name !== '.probe')) continue;
      const full = path.join(dir, entry.name);
      if (entry.name === '.probe') {
        if (dir !== root && holdsCaptures(path.join(dir, DEFAULT_FILE_PATH))) found.push(path.relative(root, dir));
      } else if (depth < DEPTH) walk(full, depth + 1);
    }
  };
  walk(root, 1);
  return found.sort();
}

function holdsCaptures(folder: string): boolean {
  try {
    return readdirSync(folder).some((name) => name.endsWith('.json'));
  } catch {
    return false;
  }
}

/** One line saying where the captures went and the command that reads them. */
export function elsewhereLine(stores: string[]): string {
  const folders = stores.map((dir) => terminalText(path.join(dir, '.probe'))).join(', ');
  return `The captures were stored in ${folders} (a root of its own): read them with PROBE_ROOT=${shellWord(stores[0]!)} probe list`;
}
