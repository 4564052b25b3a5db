import path from 'node:path';
import { existsSync } from 'node:fs';
import { compileGlob } from '../util/glob';
import { MAX_MANIFEST_BYTES, readSafeText } from '../util/safeRead';

/** Where a process's captures and config live, as every process of the app and the CLI find it. */
export interface AppRoot {
  /** The folder whose `.probe` holds the store and whose `probe.config.*` is read (unless a nearer one is). */
  root: string;
  /** The folders searched for a config file, nearest first: the package's own, up to the root. */
  configDirs: string[];
}

/**
 * The app root: `PROBE_ROOT` (`probe run` passes its own to everything it starts), else the nearest folder at or
 * above `cwd` holding a package.json, else `cwd`. When that package is a workspace of a monorepo (npm, Yarn and
 * Bun `workspaces` in a package.json above it, or a `pnpm-workspace.yaml`), the root is the monorepo's root: every
 * package of one repository stores in one `.probe` and reads one config, so `probe list` and the dashboard at the
 * repository's root see what any of its packages recorded. A package's own config file, if it has one, is read
 * before the root's.
 */
export function findAppRoot(cwd: string, env: NodeJS.ProcessEnv): AppRoot {
  const here = path.resolve(cwd);
  const pkg = nearestPackage(here);
  if (env.PROBE_ROOT) {
    const root = path.resolve(cwd, env.PROBE_ROOT);
    return { root, configDirs: pkg && isInside(pkg, root) ? foldersUpTo(pkg, root) : [root] };
  }
  if (!pkg) return { root: here, configDirs: [here] };
  const monorepo = workspaceRootOf(pkg);
  return monorepo ? { root: monorepo, configDirs: foldersUpTo(pkg, monorepo) } : { root: pkg, configDirs: [pkg] };
}

function nearestPackage(from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The nearest folder above `pkg` that declares workspaces matching it, if any. */
function workspaceRootOf(pkg: string): string | null {
  for (let dir = path.dirname(pkg); dir !== pkg && path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const patterns = workspacePatterns(dir);
    if (patterns && matchesWorkspace(path.relative(dir, pkg), patterns)) return dir;
  }
  return null;
}

/** The workspace globs a folder declares, or null when it declares none. */
export function workspacePatterns(dir: string): string[] | null {
  const found: string[] = [];
  let declared = false;
  const manifest = readText(path.join(dir, 'package.json'));
  if (manifest !== null) {
    try {
      const workspaces = (JSON.parse(manifest) as { workspaces?: unknown }).workspaces;
      // npm and Bun take a list; Yarn also `{ packages: [...] }`.
      const list = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
      if (Array.isArray(list)) {
        declared = true;
        found.push(...list.filter((entry): entry is string => typeof entry === 'string'));
      }
    } catch {
      // not this tool's to report: npm says it
    }
  }
  const pnpm = readText(path.join(dir, 'pnpm-workspace.yaml'));
  if (pnpm !== null) {
    declared = true;
    found.push(...pnpmPackages(pnpm));
  }
  return declared ? found : null;
}

/** The `packages:` list of a pnpm-workspace.yaml (block or flow style), without a YAML parser. */
function pnpmPackages(text: string): string[] {
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => /^packages\s*:/.test(line));
  if (start === -1) return out;
  const inline = /^packages\s*:\s*\[(.*)\]/.exec(lines[start]!);
  if (inline) return inline[1]!.split(',').map(unquote).filter(Boolean);
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const item = /^\s*-\s*(.+?)\s*(#.*)?$/.exec(line);
    if (item) out.push(unquote(item[1]!));
  }
  return out;
}

function unquote(text: string): string {
  return text.trim().replace(/^(['"])(.*)\1$/, '$2');
}

/** Whether a package's path relative to the root matches the workspace globs (`!` excludes, as pnpm's do). */
export function matchesWorkspace(relative: string, patterns: string[]): boolean {
  const segments = relative.split(path.sep).filter(Boolean);
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const body = (negated ? pattern.slice(1) : pattern).replace(/^\.\//, '').replace(/\/+$/, '');
    if (matchSegments(body.split('/').filter(Boolean), segments)) matched = !negated;
  }
  return matched;
}

/** Path globs by segment: `**` any number of segments, `*` and `?` within one (a segment has no `/`), in bounded time. */
function matchSegments(pattern: string[], segments: string[]): boolean {
  // can[j]: the first i pattern segments match the first j path segments.
  let can = [true, ...segments.map(() => false)];
  for (const part of pattern) {
    const next = segments.map(() => false);
    next.push(false);
    if (part === '**') {
      let any = false;
      for (let j = 0; j <= segments.length; j++) {
        any ||= can[j]!;
        next[j] = any;
      }
    } else {
      const glob = compileGlob(part);
      for (let j = 1; j <= segments.length; j++) next[j] = can[j - 1]! && glob.test(segments[j - 1]!);
    }
    can = next;
  }
  return can[segments.length]!;
}

function foldersUpTo(from: string, root: string): string[] {
  const dirs: string[] = [];
  for (let dir = from; ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === root || path.dirname(dir) === dir) return dirs;
  }
}

function isInside(dir: string, root: string): boolean {
  const relative = path.relative(root, dir);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function readText(file: string): string | null {
  try {
    return readSafeText(file, { maxBytes: MAX_MANIFEST_BYTES, follow: true });
  } catch {
    return null;
  }
}
