import { lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync, closeSync, fsyncSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SNAPSHOT_VERSION, type SnapshotFile, type TestSnapshot } from './Snapshot';
import { readSafeText } from '../util/safeRead';
import { setOwn } from '../util/setOwn';

/** The folder beside a test file that holds its snapshots. */
export const SNAPSHOT_FOLDER = '__probe__';
/** Largest snapshot file read. */
const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;
/** Folders a search for snapshot files never enters (dependencies, build output, version control, Probe's own). */
const SKIPPED = new Set(['node_modules', 'dist', 'build', 'coverage']);
/** Folders a search reads at most: a huge tree is searched no further. */
const MAX_FOLDERS = 20_000;

/** A snapshot file that is not one (bad JSON, another shape, reached through a link): `probe check` stops on it. */
export class SnapshotFileError extends Error {
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`${file}: ${why}`);
    this.name = 'SnapshotFileError';
  }
}

/** `test/users.test.ts` → `test/__probe__/users.test.ts.json` (relative to the root, `/` separated). */
export function snapshotPathOf(testFile: string): string {
  const slash = testFile.lastIndexOf('/');
  return `${testFile.slice(0, slash + 1)}${SNAPSHOT_FOLDER}/${testFile.slice(slash + 1)}.json`;
}

/** The test file a snapshot file belongs to (the inverse of snapshotPathOf); null for a name that is none. */
export function testFileOf(snapshotFile: string): string | null {
  const match = /^(.*?)(?:^|\/)__probe__\/([^/]+)\.json$/.exec(snapshotFile);
  if (!match) return null;
  return match[1] ? `${match[1]}/${match[2]}` : match[2]!;
}

/** The file's text: stable key order (tests sorted by name, each call's keys as the builder set them), two-space indent. */
export function snapshotText(file: SnapshotFile): string {
  const tests: Record<string, TestSnapshot> = {};
  for (const name of Object.keys(file.tests).sort()) setOwn(tests, name, file.tests[name]!);
  return `${JSON.stringify({ probe_snapshot: SNAPSHOT_VERSION, file: file.file, tests }, null, 2)}\n`;
}

/** The absolute path of a file under the root, refused when it leaves the root or passes through a link. */
function inside(root: string, relative: string): string {
  const full = path.resolve(root, relative);
  const back = path.relative(root, full);
  if (!back || back.startsWith('..') || path.isAbsolute(back)) throw new SnapshotFileError(relative, 'not inside the project');
  let at = root;
  for (const part of back.split(path.sep)) {
    at = path.join(at, part);
    try {
      if (lstatSync(at).isSymbolicLink())
        throw new SnapshotFileError(relative, `${path.relative(root, at)} is a link: snapshots are never read or written through one`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
      throw error;
    }
  }
  return full;
}

/** The snapshot file at `relative`, or null when there is none. */
export function readSnapshotFile(root: string, relative: string): SnapshotFile | null {
  const full = inside(root, relative);
  let text: string;
  try {
    text = readSafeText(full, { maxBytes: MAX_SNAPSHOT_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SnapshotFileError(relative, (error as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SnapshotFileError(relative, `not JSON (${(error as Error).message}): fix it or delete it and run probe check --update`);
  }
  const file = parsed as Partial<SnapshotFile> | null;
  if (
    !file ||
    typeof file !== 'object' ||
    file.probe_snapshot !== SNAPSHOT_VERSION ||
    !file.tests ||
    typeof file.tests !== 'object' ||
    Array.isArray(file.tests)
  )
    throw new SnapshotFileError(relative, `not a Probe snapshot file of format ${SNAPSHOT_VERSION}`);
  for (const [name, test] of Object.entries(file.tests)) {
    if (!test || !Array.isArray((test as TestSnapshot).calls)) throw new SnapshotFileError(relative, `test ${JSON.stringify(name)} has no list of calls`);
  }
  return { probe_snapshot: SNAPSHOT_VERSION, file: typeof file.file === 'string' ? file.file : (testFileOf(relative) ?? ''), tests: file.tests };
}

/**
 * Writes a snapshot file: inside the root, never through a link, whole or not at all (a fresh file written next to
 * it, then renamed over it, so a reader or a crash never sees half of one).
 */
export function writeSnapshotFile(root: string, relative: string, file: SnapshotFile): void {
  const full = inside(root, relative);
  const folder = path.dirname(full);
  mkdirSync(folder, { recursive: true });
  inside(root, path.relative(root, folder));
  const temporary = path.join(folder, `.${path.basename(full)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // `wx`: a name planted there (a link) makes this fail instead of being followed.
  const fd = openSync(temporary, 'wx', 0o644);
  try {
    writeSync(fd, snapshotText(file));
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, full);
}

export function removeSnapshotFile(root: string, relative: string): void {
  const full = inside(root, relative);
  try {
    unlinkSync(full);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Every snapshot file under the root (relative paths), links and skipped folders left out. */
export function findSnapshotFiles(root: string): string[] {
  const out: string[] = [];
  const pending = [''];
  for (let seen = 0; pending.length && seen < MAX_FOLDERS; seen++) {
    const relative = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (!entry.isDirectory()) continue;
      if (entry.name === SNAPSHOT_FOLDER) {
        try {
          for (const file of readdirSync(path.join(root, child), { withFileTypes: true }))
            if (file.isFile() && file.name.endsWith('.json')) out.push(`${child}/${file.name}`);
        } catch {
          // unreadable: nothing of it is checked
        }
      } else if (!entry.name.startsWith('.') && !SKIPPED.has(entry.name)) pending.push(child);
    }
  }
  return out.sort();
}

/** Whether the file (relative to the root) exists, as anything. */
export function exists(root: string, relative: string): boolean {
  try {
    lstatSync(path.resolve(root, relative));
    return true;
  } catch {
    return false;
  }
}
