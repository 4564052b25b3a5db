import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, makePrivateFolder } from '../../store/privateFolder';
import { readSafeText } from '../../util/safeRead';

/**
 * The packages learned to hop, kept for the next runs of the app: `<root>/.probe/learned-hops.json`. Each one is
 * kept by npm name and version (what a reinstall or another checkout of the app shares; a folder path is not),
 * and whether it ran as an ES module (the import loader is then needed to reach it at load). Read once at start:
 * the list only names packages whose exported classes get library entries when the app loads them, so a file
 * that is not Probe's (a link, a huge or garbled one, another user's) is ignored whole, never followed, never fatal.
 */
export interface LearnedPackage {
  name: string;
  version: string;
  esm: boolean;
}

export const LEARNED_FILE = 'learned-hops.json';
/** Packages kept (the oldest learned go first); each entry is under 300 bytes. */
export const MAX_LEARNED = 16;
const MAX_BYTES = 8 * 1024;
/** An npm package name (lower case, at most 214 characters, `@scope/name`): what `require` is given. */
const NAME = /^(?:@[a-z0-9][a-z0-9._~-]{0,100}\/)?[a-z0-9][a-z0-9._~-]{0,100}$/;
/** A semver version as package.json holds it (prerelease and build parts included). */
const VERSION = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:[-+][0-9A-Za-z.+-]{1,64})?$/;

/** Whether a value read from the file is a well-formed entry. */
function isEntry(value: unknown): value is LearnedPackage {
  const entry = value as Partial<LearnedPackage> | null;
  return (
    !!entry &&
    typeof entry === 'object' &&
    typeof entry.name === 'string' &&
    NAME.test(entry.name) &&
    typeof entry.version === 'string' &&
    VERSION.test(entry.version) &&
    typeof entry.esm === 'boolean'
  );
}

/** Whether a package name and version may be kept (the same check the file's entries pass when read). */
export function keepable(name: string, version: string): boolean {
  return NAME.test(name) && VERSION.test(version);
}

/** `<root>/.probe`, when it is a real folder (a link there leads elsewhere: neither read nor written through). */
function probeFolder(root: string): string | null {
  const folder = path.join(root, '.probe');
  const info = fs.lstatSync(folder, { throwIfNoEntry: false });
  return info?.isDirectory() ? folder : null;
}

/**
 * The packages the app's earlier runs learned, or [] (no file, or one that is not a regular file of this user of at
 * most 8 KiB holding a list of well-formed entries). Opened without following a link, never blocking on a FIFO.
 */
export function readLearned(root: string): LearnedPackage[] {
  try {
    const folder = probeFolder(root);
    if (!folder) return [];
    const parsed = JSON.parse(readSafeText(path.join(folder, LEARNED_FILE), { maxBytes: MAX_BYTES, ownOnly: true })) as { packages?: unknown };
    const packages = parsed && typeof parsed === 'object' ? parsed.packages : null;
    if (!Array.isArray(packages) || packages.length > MAX_LEARNED || !packages.every(isEntry)) return [];
    return packages.map(({ name, version, esm }) => ({ name, version, esm }));
  } catch {
    return []; // none, being replaced, or not Probe's
  }
}

/**
 * Adds a package to the app's list (at most MAX_LEARNED, newest last). Best effort: a folder that cannot be written
 * leaves the list as it was.
 */
export function rememberLearned(root: string, learned: LearnedPackage): void {
  if (!keepable(learned.name, learned.version)) return;
  const others = readLearned(root).filter((each) => each.name !== learned.name || each.version !== learned.version);
  writeLearned(root, [...others, learned].slice(-MAX_LEARNED));
}

/**
 * Takes the entries `drop` picks off the app's list (refused when read, or a package whose hook misbehaved): a bad
 * run never poisons the next. The list is written again only when it held one of them.
 */
export function forgetLearned(root: string, drop: (entry: LearnedPackage) => boolean): void {
  const packages = readLearned(root);
  const kept = packages.filter((entry) => !drop(entry));
  if (kept.length < packages.length) writeLearned(root, kept);
}

/**
 * Written inside a real `<root>/.probe` only, 0600 in a 0700 folder, through a new temporary file renamed over the
 * list (a link in its place is replaced, not followed).
 */
function writeLearned(root: string, packages: LearnedPackage[]): void {
  try {
    const folder = path.join(root, '.probe');
    if (fs.lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink()) return;
    makePrivateFolder(folder);
    if (!probeFolder(root)) return;
    const file = path.join(folder, LEARNED_FILE);
    const temporary = `${file}.${process.pid}.${process.hrtime.bigint()}.tmp`;
    // 'wx': created here, never an existing file or a link's target; the rename replaces the name, not a target.
    fs.writeFileSync(temporary, JSON.stringify({ packages }), { mode: FILE_MODE, flag: 'wx' });
    try {
      fs.renameSync(temporary, file);
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  } catch {
    // unkept: the next run learns it again from its first such call
  }
}
