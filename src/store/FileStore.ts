import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, renameSync, unlinkSync, watch, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Store } from '../capture/Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { indexRowOf, isValidCaptureId } from '../capture/indexRow';
import { ProbeConfigError } from '../config/ProbeConfigError';
import { captureNameOf, orderKeyOf, parseCaptureName } from './orderKey';
import { captureFileText, captureOfText, fileEnd, rowOfHead } from './captureFile';
import { folderOutside } from './folderGuard';
import { chainOf, MISSING, pinChange, pinFolder, type FolderPin } from './folderPin';
import { FILE_MODE, makePrivateFolder, tightenOnce } from './privateFolder';
import { StoreError } from './StoreError';
import { unwritableFolder } from './folderWritable';
import { captureText } from './captureText';
import type { RowCache } from '../builder/RowCache';
import { isDenied, readFailure, writeFailure } from './folderFailure';
import { threadWork } from '../util/threadWork';
import { MAX_TEXT_BYTES, openSafe, readSafeTextAsync, SafeReadError } from '../util/safeRead';
import { FileLinks } from '../flows/FileLinks';
import { notesOf, withLinks, type LinkNote } from '../flows/linkNotes';

export interface FileStoreOptions {
  /** Folder of the capture files (absolute, or relative to the working directory). */
  path: string;
  /** Most recent captures kept (of every type but `test` when `testLimit` is given). */
  limit: number;
  /**
   * Most recent test captures kept, counted apart from the others (absent: tests count with them). A test run
   * writes a capture per test, a few thousand for a large suite: kept whole, while `limit` still bounds a
   * long-lived server's requests and jobs.
   */
  testLimit?: number;
  logger?: Logger;
  /**
   * The folder the captures must really lie in (`<root>/.probe`): a folder that leads outside it through a
   * symbolic link is refused at start (a ProbeConfigError naming storage.file.path) and before each mkdir.
   */
  within?: string;
  /**
   * Least time between two trims (default 0: the puts of one turn share a trim). A put resolves after a
   * trim that saw its file, so this also bounds how fast one caller awaiting each put can go: the write
   * thread, whose puts overlap, asks for 500 ms (see storeThread).
   */
  trimEveryMs?: number;
  /**
   * The folder's identity as another FileStore of this process pinned it (the store's thread gets the app
   * thread's): a folder replaced before this store opens is then refused as replaced, not taken as new.
   */
  pin?: FolderPin | null;
}

/**
 * What a put writes, serialized: the capture file's name, its index row's text and the capture's text. The
 * two texts travel apart and are joined where they are written: joining them on the app's thread would copy
 * the capture once more before postMessage copies it again.
 */
export interface PreparedPut {
  id: string;
  name: string;
  rowText: string;
  captureText: string;
  /** The capture's notes for the link index (flows/linkNotes.ts); missing: none. */
  links?: LinkNote[];
}

/**
 * Checks and serializes a capture for a put (pure: the app's thread does it, the writes may run elsewhere). With
 * `rows`, the rows that cache built are serialised once for every version of their capture (captureText).
 */
export function preparePut(capture: Capture, rows?: RowCache): PreparedPut {
  if (!isValidCaptureId(capture?.id)) throw badId(capture?.id);
  const row = indexRowOf(capture);
  return {
    id: capture.id,
    name: captureNameOf(orderKeyOf(row.started_at), capture.id),
    rowText: JSON.stringify(row),
    captureText: captureText(capture, rows),
    links: notesOf(capture),
  };
}

function badId(id: unknown): StoreError {
  return new StoreError('PROBE_STORE_BAD_ID', `refusing to store a capture with id ${JSON.stringify(id)}`);
}

/** Temp files left by a writer that died between write and rename are removed after this long. */
const STALE_TEMP_MS = 60_000;
const ROWS_PER_SLICE = 50;
/** Bytes read from the head of a capture file for its index row (rows are a few hundred bytes). */
const HEAD_BYTES = 4096;
const TRIM_EVERY_MS = 0;
const PRUNE_LINKS_MS = 30_000;
/**
 * Opening flags. O_NOFOLLOW: a symbolic link planted in the folder under a capture's name is never opened
 * (a repository can commit one pointing at any file). O_EXCL on the temp file: it is new, never a file
 * or a link already there. Reads go through safeRead.
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
/** Reads: never through a link, never a FIFO or a device, never more than a string can hold (safeRead). */
const READ_LIMITS = { maxBytes: MAX_TEXT_BYTES };
/** Names of the files a write leaves behind when it dies between create and rename, and of the spare files older versions kept. */
const isTempName = (name: string) => name.startsWith('.') && name.endsWith('.tmp');
const isLegacySpare = (name: string) => name.startsWith('.spare.');
/** Temp file names: unique per process (pid and a random tag, for pid reuse across hosts) and per write. */
const TEMP_TAG = `${process.pid}.${randomBytes(4).toString('hex')}`;
let tempCount = 0;

/**
 * One JSON file per capture, named by its order key (`<started_at µs>-<id>.json`) and written atomically
 * (temp file + rename: so whoever reads the folder, Probe or a person's own tools, never
 * finds half a capture under a capture's name, even after a writer killed mid-write). The file holds the index row first, then the capture (see captureFile): `index()`
 * reads only the head (and the last few bytes) of each file, so it costs the same whatever the captures
 * weigh, and the trim sorts file names and never opens a file. Only regular files count: whatever else sits
 * under a capture's name (a link, a FIFO) is never opened, written, trimmed or removed.
 *
 * Concurrency without locks: a put writes its file (the rename commits it), then waits for a trim (shared
 * with the other puts of the moment, see trimSoon) to the `limit` newest files it sees. A trim only deletes
 * a capture that has at least `limit` newer ones beside it, so the newest `limit` captures are never
 * deleted, and the last trim to run sees every committed capture: once all writers are done exactly `limit`
 * remain, however many processes wrote at once.
 */
export class FileStore implements Store {
  readonly path: string;
  readonly limit: number;
  readonly testLimit: number | undefined;
  /** Whether each capture file seen is a test's, by file name (a file is never rewritten: a re-put is a new name). */
  private readonly testFiles = new Map<string, boolean>();
  /** See FileStoreOptions.within. */
  readonly within: string | undefined;
  private readonly trimEveryMs: number;
  private readonly logger: Logger | undefined;
  /** The identity of the folder in use (folderPin.ts), null until it exists. */
  private pin: FolderPin | null = null;
  /** The folder's identity now (see FileStoreOptions.pin), for a store opened on another thread. */
  get folderPin(): FolderPin | null {
    return this.pin;
  }
  /** Set once the folder was found replaced: every later write and delete throws it. */
  private swapped: StoreError | null = null;
  /** The folder was found unchanged in this synchronous run (see folderReady). */
  private checkedThisTurn = false;
  private pendingTrim: Promise<void> | null = null;
  private lastTrim = 0;
  /** The link index beside the capture files (flows/FileLinks.ts). */
  private readonly links: FileLinks;
  private lastLinkPrune = 0;

  constructor(options: FileStoreOptions) {
    this.path = path.resolve(options.path);
    this.limit = Math.max(1, Math.floor(options.limit));
    this.testLimit = options.testLimit === undefined ? undefined : Math.max(1, Math.floor(options.testLimit));
    this.trimEveryMs = options.trimEveryMs ?? TRIM_EVERY_MS;
    this.logger = options.logger;
    this.within = options.within === undefined ? undefined : path.resolve(options.within);
    this.links = new FileLinks(linksFolderOf(this.path, this.within), (folder) => (this.within === undefined ? null : folderOutside(folder, this.within)));
    if (options.pin) {
      this.pin = options.pin;
      try {
        this.folderReady();
      } catch {
        return; // replaced: every write and delete says so
      }
    } else {
      const outside = this.within === undefined ? null : folderOutside(this.path, this.within);
      if (outside) throw new ProbeConfigError('storage.file.path', `refusing to write captures: ${outside}`);
      this.pin = pinOrNull(this.path, this.within);
      if (this.pin) {
        const tightened = tightenOnce(chainOf(this.path, this.within), this.path);
        if (tightened) this.logger?.warn(`made ${this.within ?? this.path} private (${tightened}): the captures in it were readable by other users`);
      }
    }
    this.removeLeftovers((name) => isLegacySpare(name) || this.isStale(name));
  }

  /**
   * The writes are synchronous on purpose: a put runs on a turn of its own after the response (the
   * capture writer's drain), and under an app's async context manager every fs promise pays for promise
   * hooks: measured, an atomic write costs 3 to 5 times the CPU through fs/promises that it costs through
   * the sync calls, which block for tens of microseconds on a local disk.
   */
  async put(capture: Capture): Promise<void> {
    await this.putPrepared(preparePut(capture));
  }

  /** put of a capture already serialized (by preparePut, possibly on another thread). */
  async putPrepared(prepared: PreparedPut): Promise<void> {
    this.write(prepared);
    await this.trimSoon();
  }

  /** put, all of it now: for a process that is exiting, where nothing async runs any more. */
  putSync(capture: Capture): void {
    this.write(preparePut(capture));
    this.trim();
  }

  private write(prepared: PreparedPut): void {
    // Checked again: a prepared put may come from another thread.
    if (!isValidCaptureId(prepared.id) || parseCaptureName(prepared.name)?.id !== prepared.id) throw badId(prepared.id);
    // The link notes before the capture: whoever sees the capture finds its links too.
    if (prepared.links?.length) {
      try {
        this.links.note(prepared.links);
      } catch (error) {
        // The capture is only unlinked (said under PROBE_DEBUG).
        this.logger?.debug(`could not note the links of capture ${prepared.id} in ${this.links.folder}`, error);
      }
    }
    try {
      this.writeAtomic(prepared.name, captureFileText(prepared.rowText, prepared.captureText, prepared.id));
    } catch (error) {
      throw writeFailure(this.path, error);
    }
  }

  /**
   * Puts share trims: one runs on the next turn (no sooner than trimEveryMs after the last), so a put
   * resolves once a trim that saw its file has run (after all writers stop, exactly `limit` remain), and
   * the puts of one turn list the folder once. Between trims the folder may hold a few captures over the
   * limit; `index()` reads newest first and cuts at the limit.
   */
  private trimSoon(): Promise<void> {
    this.pendingTrim ??= new Promise<void>((resolve, reject) => {
      const run = () => {
        this.pendingTrim = null;
        this.lastTrim = Date.now();
        try {
          this.trim();
          resolve();
        } catch (error) {
          reject(error);
        }
      };
      const wait = this.lastTrim + this.trimEveryMs - Date.now();
      if (wait > 0) setTimeout(run, wait);
      else setImmediate(run);
    });
    return this.pendingTrim;
  }

  async find(id: string): Promise<Capture | null> {
    if (!isValidCaptureId(id)) return null;
    // Newest first: a capture put again with another start time has two files until the next trim.
    for (const entry of this.captureFiles().filter((file) => file.id === id)) {
      let text: string | null;
      try {
        text = await readRegular(path.join(this.path, entry.name));
      } catch (error) {
        if (isMissing(error)) continue; // removed by a concurrent trim
        throw readFailure(this.path, error);
      }
      const capture = text === null ? null : captureOfText(text);
      // The id inside must match the name: a file renamed by hand may hold another capture.
      if (capture?.id === id) return withLinks(capture, this.links);
      this.logger?.debug(`skipped corrupt capture file ${entry.name} in ${this.path}`);
    }
    return null;
  }

  whyEmpty(): string | null {
    return unwritableFolder(this.path);
  }

  async index(): Promise<IndexRow[]> {
    const out: IndexRow[] = [];
    const seen = new Set<string>();
    const files = this.captureFiles();
    const keeps = this.keeper();
    for (let i = 0; i < files.length && !keeps.full(); i++) {
      // Short synchronous slices: see readRow. Yielding between them keeps a dashboard's event loop responsive.
      if (i > 0 && i % ROWS_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const { name, id } = files[i]!;
      if (seen.has(id)) continue; // a stale duplicate of a re-put capture
      const row = this.readRow(name, id);
      if (row === undefined) continue; // retired by a concurrent trim
      if (row?.id !== id) {
        this.logger?.debug(`skipped corrupt capture file ${name} in ${this.path}`);
        continue;
      }
      seen.add(id);
      this.testFiles.set(name, row.type === 'test');
      if (keeps.keep(row.type === 'test')) out.push(row);
    }
    // Captures over the limit wait for the next trim (at most trimEveryMs): they are never shown.
    return out;
  }

  async clear(): Promise<void> {
    // Temp files too, whatever their age: a put in progress whose temp file goes here finds it gone at its
    // rename and counts as written before the clear (see writeAtomic).
    for (const name of this.list()) if (parseCaptureName(name) || isTempName(name) || isLegacySpare(name)) this.remove(name);
    if (this.folderReady()) this.links.clear();
  }

  async close(): Promise<void> {}

  async ids(): Promise<string[]> {
    return [...new Set(this.captureFiles().map((file) => file.id))];
  }

  /** A folder watch: a capture appears by a rename into the folder. A folder not there yet is not watched (callers poll too). */
  watch(onChange: () => void): () => void {
    try {
      const watcher = watch(this.path, { persistent: false }, () => onChange());
      watcher.on('error', () => watcher.close());
      return () => watcher.close();
    } catch {
      return () => undefined;
    }
  }

  /** Capture files by name, newest first. */
  private captureFiles(): CaptureName[] {
    return captureFilesOf(this.list());
  }

  /** Removes the oldest captures beyond the limit and stale temp files. */
  private trim(): void {
    if (!this.folderReady()) return;
    const names = this.list();
    const kept = new Set<string>();
    const dropped: string[] = [];
    const keeps = this.keeper();
    const files = captureFilesOf(names);
    if (this.testLimit !== undefined) this.forgetGone(files);
    for (const file of files) {
      // A second file of one id (re-put with another start time): the newest stands.
      if (kept.has(file.id)) dropped.push(file.name);
      else if (keeps.keep(this.isTestFile(file))) kept.add(file.id);
      else dropped.push(file.name);
    }
    // Unlinked, never kept for reuse: a removed capture leaves no copy of its text behind.
    for (const name of dropped) this.remove(name);
    if (dropped.length) this.pruneLinks(files, kept);
    // Every trim, not only one that drops: a crashed writer's temp file is shed below the limit too.
    // Cheap: names are tested in memory, and only a leftover's name leads to a stat.
    this.removeLeftovers((name) => isLegacySpare(name) || this.isStale(name), names);
  }

  /**
   * Drops the link notes older than the oldest capture kept (with a minute's margin: a note is written after its
   * capture starts), at most every PRUNE_LINKS_MS: a trim that drops runs with nearly every put once the store is full.
   */
  private pruneLinks(files: CaptureName[], kept: Set<string>): void {
    if (Date.now() - this.lastLinkPrune < PRUNE_LINKS_MS) return;
    this.lastLinkPrune = Date.now();
    let oldest: CaptureName | undefined;
    for (const file of files) if (kept.has(file.id)) oldest = file;
    if (!oldest) return;
    try {
      this.links.prune(Number(oldest.key) / 1000 - 60_000);
    } catch (error) {
      this.logger?.debug(`could not prune the link notes in ${this.links.folder}`, error);
    }
  }

  /**
   * Counts the captures kept, newest first: `limit` of them, or with `testLimit`, `limit` of every type but
   * `test` and `testLimit` tests.
   */
  private keeper(): { keep(isTest: boolean): boolean; full(): boolean } {
    const { limit, testLimit } = this;
    let others = 0;
    let tests = 0;
    if (testLimit === undefined) return { keep: () => others++ < limit, full: () => others >= limit };
    return {
      keep: (isTest) => (isTest ? tests++ < testLimit : others++ < limit),
      full: () => others >= limit && tests >= testLimit,
    };
  }

  /** Whether a capture file is a test's (its head read once, then known by name); false when it cannot be read. */
  private isTestFile(file: CaptureName): boolean {
    if (this.testLimit === undefined) return false;
    let known = this.testFiles.get(file.name);
    if (known === undefined) {
      const row = this.readRow(file.name, file.id);
      known = row?.type === 'test';
      // A file being written or half there is asked again at the next trim.
      if (row) this.testFiles.set(file.name, known);
    }
    return known;
  }

  /** Forgets the files no longer in the folder (removed here or by another process). */
  private forgetGone(files: CaptureName[]): void {
    if (this.testFiles.size <= files.length) return;
    const present = new Set(files.map((file) => file.name));
    for (const name of this.testFiles.keys()) if (!present.has(name)) this.testFiles.delete(name);
  }

  /** Removes the temp and spare files (regular files only) that `drop` selects. Never throws. */
  private removeLeftovers(drop: (name: string) => boolean, names?: string[]): void {
    let listing = names;
    if (!listing) {
      try {
        listing = this.list();
      } catch {
        return; // an unreadable folder is reported by the reads and writes that need it
      }
    }
    try {
      for (const name of listing) if ((isTempName(name) || isLegacySpare(name)) && drop(name)) this.remove(name);
    } catch {
      // a replaced folder: said by the next write
    }
  }

  /**
   * The index row of one capture file, from its first few KiB (the whole file only when the row is longer):
   * undefined when the file is gone, null when it is not a whole capture file of `id` (cut short: a full disk,
   * a crash). Synchronous: one async read is several thread-pool round trips (open, read, close), which made
   * listing 200 rows several times slower than reading them.
   */
  private readRow(name: string, id: string): IndexRow | null | undefined {
    let fd: number;
    let size: number;
    try {
      ({ fd, size } = openSafe(path.join(this.path, name), READ_LIMITS));
    } catch (error) {
      return isMissing(error) ? undefined : null;
    }
    try {
      const head = Buffer.allocUnsafe(HEAD_BYTES);
      const length = readSync(fd, head, 0, HEAD_BYTES, 0);
      let row = rowOfHead(head.subarray(0, length), length < HEAD_BYTES);
      if (length < HEAD_BYTES) size = length;
      if (row === undefined) {
        const whole = Buffer.allocUnsafe(size);
        const total = readSync(fd, whole, 0, whole.length, 0);
        row = rowOfHead(whole.subarray(0, total), true) ?? null;
      }
      if (!row) return null;
      // Listed only when find() can read it: the file must end as a whole one does.
      const end = Buffer.from(fileEnd(id));
      const tail = Buffer.allocUnsafe(end.length);
      const got = size < end.length ? 0 : readSync(fd, tail, 0, end.length, size - end.length);
      if (got === end.length && tail.equals(end)) return row;
      return this.wholeOldFile(fd, size, id) ? row : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  /** A file written before captures files had an `end`: listed when it parses whole (read once per listing). */
  private wholeOldFile(fd: number, size: number, id: string): boolean {
    const whole = Buffer.allocUnsafe(size);
    const total = readSync(fd, whole, 0, size, 0);
    return captureOfText(whole.toString('utf8', 0, total))?.id === id;
  }

  private writeAtomic(name: string, data: string): void {
    const temp = path.join(this.path, `.${name}.${TEMP_TAG}.${++tempCount}.tmp`);
    if (!this.folderReady()) this.makeFolder();
    try {
      writeNew(temp, data);
    } catch (error) {
      if (!isMissing(error)) throw error;
      this.makeFolder(); // the folder was removed under us
      writeNew(temp, data);
    }
    try {
      renameSync(temp, path.join(this.path, name));
    } catch (error) {
      // The temp file is gone: a clear ran meanwhile, and the capture counts as written before it.
      if (isMissing(error)) return;
      this.remove(path.basename(temp));
      throw error;
    }
  }

  /**
   * Before each batch of writes and each delete: true when the folder is the one this store opened, false when it
   * does not exist (nothing to delete; a write makes it). A folder replaced since (folderPin.ts) stops the store
   * for good: this throws, now and at every later write and delete.
   */
  private folderReady(): boolean {
    if (this.swapped) throw this.swapped;
    if (this.checkedThisTurn) return true;
    if (!this.pin) {
      this.refuseOutside();
      this.pin = pinFolder(this.path, this.within);
      return this.pin !== null;
    }
    const change = pinChange(this.pin);
    if (change === null) {
      // One check per batch: the writes of one synchronous run (a batch from the app's thread, a trim's deletes)
      // share it; three stat calls per capture cost about a tenth of its write.
      this.checkedThisTurn = true;
      queueMicrotask(() => (this.checkedThisTurn = false));
      return true;
    }
    if (change === MISSING) {
      this.pin = null;
      return false;
    }
    this.swapped = new StoreError(
      'PROBE_STORE_UNSAFE_PATH',
      `storage.file.path: ${change}; no more captures are written or removed there until the app restarts`,
    );
    throw this.swapped;
  }

  /** Makes the folder (checked again first: it may have been replaced since the start) and pins it. */
  private makeFolder(): void {
    this.refuseOutside();
    makePrivateFolder(this.path);
    this.pin = pinFolder(this.path, this.within);
  }

  private refuseOutside(): void {
    const outside = this.within === undefined ? null : folderOutside(this.path, this.within);
    if (outside) throw new StoreError('PROBE_STORE_UNSAFE_PATH', `storage.file.path: refusing to write captures: ${outside}`);
  }

  /** The regular files of the folder: links, FIFOs and folders planted under a capture's name are never touched. */
  private list(): string[] {
    try {
      return readdirSync(this.path, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    } catch (error) {
      if (isMissing(error)) return [];
      throw readFailure(this.path, error);
    }
  }

  /** Removes one file of the folder, once the folder is checked to be the one this store opened (throws when replaced). */
  private remove(name: string): void {
    if (!this.folderReady()) return;
    try {
      unlinkSync(path.join(this.path, name));
    } catch (error) {
      if (!isMissing(error)) this.logger?.debug(`could not remove ${name} in ${this.path}`, error);
    }
  }

  private isStale(name: string): boolean {
    try {
      const info = lstatSync(path.join(this.path, name), { throwIfNoEntry: false });
      return info !== undefined && Date.now() - info.mtimeMs > STALE_TEMP_MS;
    } catch {
      return false;
    }
  }
}

type CaptureName = NonNullable<ReturnType<typeof parseCaptureName>>;

/**
 * The link index's folder (flows/FileLinks.ts): `<root>/.probe/links/<capture folder's place>`, one per capture
 * folder, so that the capture folder holds capture files only; without a `.probe` to stay in, `<folder>.links`.
 */
function linksFolderOf(captures: string, within: string | undefined): string {
  if (within === undefined) return `${captures}.links`;
  const place = path.relative(within, captures).split(path.sep).join('_');
  return path.join(within, 'links', place || '_');
}

/** The capture files among a folder's names, newest first (order key, then id, descending). */
function captureFilesOf(names: string[]): CaptureName[] {
  const files: CaptureName[] = [];
  for (const name of names) {
    const parsed = parseCaptureName(name);
    if (parsed) files.push(parsed);
  }
  return files.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

/**
 * Creates `file` (never an existing file or link) holding `text` in UTF-8; on a fault (a full disk) nothing
 * stays. The text is written as a string: Node encodes it for the write without a Buffer of its own (measured,
 * a 1.5 KB capture's Buffer.from cost more user time than its write). A short write, which a regular file
 * gives only near a fault, writes the rest from the encoded bytes.
 */
function writeNew(file: string, text: string): void {
  const fd = openSync(file, CREATE_FLAGS, FILE_MODE);
  try {
    const length = Buffer.byteLength(text, 'utf8');
    let done = writeSync(fd, text, null, 'utf8');
    if (done < length) {
      const data = Buffer.from(text, 'utf8');
      while (done < length) done += writeSync(fd, data, done, length - done);
    }
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(file);
    } catch {
      // removed by a clear meanwhile
    }
    throw error;
  }
  closeSync(fd);
}

/** A capture file's text, or null when the name holds no regular file (a FIFO or a device planted there) or one too large. */
async function readRegular(file: string): Promise<string | null> {
  try {
    return await readSafeTextAsync(file, READ_LIMITS);
  } catch (error) {
    if (error instanceof SafeReadError || (error as NodeJS.ErrnoException)?.code === 'ELOOP') return null;
    throw error;
  }
}

/**
 * The folder's pin at start, or null when this user may not look into the chain (a `.probe` made by another user):
 * the first read or write then says which folder refused and what to do, where a bare EACCES would name neither.
 */
function pinOrNull(folder: string, within: string | undefined): FolderPin | null {
  try {
    return pinFolder(folder, within);
  } catch (error) {
    if (isDenied(error)) return null;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}
