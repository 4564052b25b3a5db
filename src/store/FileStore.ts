import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Store } from './Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { indexRowOf, isValidCaptureId } from '../capture/index-row';
import { orderKeyOf, parseRowName, rowNameOf } from './order-key';
import { StoreError } from './StoreError';
import { SpareFiles } from './SpareFiles';

export interface FileStoreOptions {
  /** Folder of the capture files (absolute, or relative to the working directory). */
  path: string;
  /** Most recent captures kept. */
  limit: number;
  logger?: Logger;
  /** Least time between two trims (default 100 ms). The write thread asks for more: see fileStoreThread. */
  trimEveryMs?: number;
}

/** What a put writes, serialized: the capture file's text and its index row's name and text. */
export interface PreparedPut {
  id: string;
  captureText: string;
  rowName: string;
  rowText: string;
}

/** Checks and serializes a capture for a put (pure: the app's thread does it, the writes may run elsewhere). */
export function preparePut(capture: Capture): PreparedPut {
  if (!isValidCaptureId(capture?.id)) throw badId(capture?.id);
  const row = indexRowOf(capture);
  return { id: capture.id, captureText: JSON.stringify(capture), rowName: rowNameOf(orderKeyOf(row.started_at), capture.id), rowText: JSON.stringify(row) };
}

function badId(id: unknown): StoreError {
  return new StoreError('PROBE_STORE_BAD_ID', `refusing to store a capture with id ${JSON.stringify(id)}`);
}

/** Temp files left by a writer that died between write and rename are removed after this long. */
const STALE_TEMP_MS = 60_000;
const ROWS_PER_SLICE = 50;
const TRIM_EVERY_MS = 100;
/** Temp file names: unique per process (pid and a random tag, for pid reuse across hosts) and per write. */
const TEMP_TAG = `${process.pid}.${randomBytes(4).toString('hex')}`;
let tempCount = 0;

/**
 * One JSON file per capture (`<id>.json`) plus a small index-row file named by its order key
 * (`<started_at µs>-<id>.row`), both written atomically (temp file + rename). `index()` reads only the row
 * files, so it costs the same whatever the captures weigh; the trim sorts file names and never opens a file.
 *
 * Concurrency without locks: a put writes the capture, then its row (a row means "committed"), then waits
 * for a trim (shared with the other puts of the moment, see trimSoon) to the `limit` newest rows it sees. A trim only deletes a row that has at least `limit` newer rows beside
 * it, so the newest `limit` captures are never deleted, and the last trim to run sees every committed row:
 * once all writers are done exactly `limit` remain, however many processes wrote at once.
 */
export class FileStore implements Store {
  readonly path: string;
  readonly limit: number;
  private readonly trimEveryMs: number;
  private readonly logger: Logger | undefined;
  private folderMade = false;
  private pendingTrim: Promise<void> | null = null;
  private lastTrim = 0;
  private readonly spares: SpareFiles;

  constructor(options: FileStoreOptions) {
    this.path = path.resolve(options.path);
    this.limit = Math.max(1, Math.floor(options.limit));
    this.trimEveryMs = options.trimEveryMs ?? TRIM_EVERY_MS;
    this.logger = options.logger;
    this.spares = new SpareFiles(this.path, TEMP_TAG);
  }

  /**
   * The writes are synchronous on purpose: a put runs on a turn of its own after the response (the
   * capture writer's drain), and under an app's async context manager every fs promise pays for promise
   * hooks: measured, two atomic writes cost 3 to 5 times the CPU through fs/promises that they cost
   * through the sync calls, which block for tens of microseconds on a local disk.
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
    if (!isValidCaptureId(prepared.id) || !parseRowName(prepared.rowName)) throw badId(prepared.id);
    this.writeAtomic(`${prepared.id}.json`, prepared.captureText);
    this.writeAtomic(prepared.rowName, prepared.rowText);
  }

  /**
   * Puts share trims: one runs on the next turn, and at most one per trimEveryMs, so a put resolves once
   * a trim that saw its row has run (after all writers stop, exactly `limit` remain) while a busy server
   * lists the folder a few times a second instead of once per capture. Between trims the folder may hold a
   * few captures over the limit; `index()` reads rows newest first and cuts at the limit.
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
    let text: string;
    try {
      text = await readFile(path.join(this.path, `${id}.json`), 'utf8');
    } catch (error) {
      if (isMissing(error)) return null;
      throw new StoreError('PROBE_STORE_READ', `cannot read capture ${id} in ${this.path}`, error);
    }
    const capture = parseJson(text) as Capture | null;
    if (!capture || typeof capture !== 'object' || capture.id !== id) {
      this.logger?.debug(`skipped corrupt capture file ${id}.json in ${this.path}`);
      return null;
    }
    return capture;
  }

  async index(): Promise<IndexRow[]> {
    const rows = this.list()
      .map((name) => ({ name, parsed: parseRowName(name) }))
      .filter((entry) => entry.parsed !== null)
      .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const texts = await this.readSmallFiles(rows.map((entry) => entry.name));
    const out: IndexRow[] = [];
    const seen = new Set<string>();
    texts.forEach((text, i) => {
      const id = rows[i]!.parsed!.id;
      if (text === null || seen.has(id)) return; // deleted by a concurrent trim, or a stale duplicate
      const row = parseJson(text) as IndexRow | null;
      if (!row || typeof row !== 'object' || row.id !== id) {
        this.logger?.debug(`skipped corrupt index row ${rows[i]!.name} in ${this.path}`);
        return;
      }
      seen.add(id);
      out.push(row);
    });
    // Captures over the limit wait for the next trim (at most trimEveryMs): they are never shown.
    return out.slice(0, this.limit);
  }

  async clear(): Promise<void> {
    const names = this.list();
    const rows = names.map(parseRowName).filter((row) => row !== null);
    // Rows first, so a reader never sees a row whose capture is already gone for long. A capture without a
    // row is a put in progress in another process: it stays, so the row its writer adds next finds it.
    for (const row of rows) this.remove(row.name);
    const cleared = new Set(rows.map((row) => row.id));
    for (const name of names) {
      const id = captureIdOf(name);
      if (id && (cleared.has(id) || this.isStale(name))) this.remove(name);
    }
    this.spares.removeAll(names);
  }

  async close(): Promise<void> {}

  /** Removes the oldest rows beyond the limit, their captures, captures without a row that are older still, and stale temp files. */
  private trim(): void {
    const names = this.list();
    const rows = names.map(parseRowName).filter((row) => row !== null).sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const kept = new Set<string>();
    const dropped: string[] = [];
    for (const row of rows) {
      // A second row of one id (re-put with another start time): the newest row stands.
      if (kept.has(row.id)) dropped.push(row.name);
      else if (kept.size < this.limit) kept.add(row.id);
      else dropped.push(row.name);
    }
    // Row before capture, so a reader never finds a row whose capture is gone for long.
    for (const name of dropped) {
      const parsed = parseRowName(name)!;
      this.retire(name);
      if (!kept.has(parsed.id)) this.retire(`${parsed.id}.json`);
    }
    for (const name of this.spares.learn(names)) if (this.isStale(name)) this.remove(name);
    if (dropped.length === 0) return;
    // Capture files whose row is gone (a writer died between the two renames, or lost a race with a trim).
    const rowIds = new Set(rows.map((row) => row.id));
    const oldestKept = rows.filter((row) => kept.has(row.id)).at(-1)?.id;
    for (const name of names) {
      const id = captureIdOf(name);
      if (id && !rowIds.has(id) && oldestKept !== undefined && id < oldestKept && this.isStale(name)) this.remove(name);
      if (name.startsWith('.') && name.endsWith('.tmp') && this.isStale(name)) this.remove(name);
    }
  }

  /**
   * Reads index rows (a few hundred bytes each). Synchronous reads in short slices: one async readFile is
   * four thread-pool round trips (open, stat, read, close), which made listing 200 rows several times slower
   * than reading them; yielding between slices keeps a dashboard's event loop responsive.
   */
  private async readSmallFiles(names: string[]): Promise<Array<string | null>> {
    const texts: Array<string | null> = [];
    for (let i = 0; i < names.length; i++) {
      if (i > 0 && i % ROWS_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      try {
        texts.push(readFileSync(path.join(this.path, names[i]!), 'utf8'));
      } catch {
        texts.push(null); // removed by a concurrent trim or clear
      }
    }
    return texts;
  }

  private writeAtomic(name: string, text: string): void {
    const temp = path.join(this.path, `.${name}.${TEMP_TAG}.${++tempCount}.tmp`);
    this.ensureFolder();
    // A spare file is rewritten in place: no inode is allocated (see SpareFiles).
    this.spares.claim(temp);
    const data = Buffer.from(text, 'utf8');
    try {
      writeOver(temp, data);
    } catch (error) {
      if (!isMissing(error)) throw error;
      this.folderMade = false; // the folder was removed under us
      this.ensureFolder();
      writeOver(temp, data);
    }
    try {
      renameSync(temp, path.join(this.path, name));
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
      throw error;
    }
  }

  private ensureFolder(): void {
    if (this.folderMade) return;
    mkdirSync(this.path, { recursive: true });
    this.folderMade = true;
  }

  private list(): string[] {
    try {
      return readdirSync(this.path);
    } catch (error) {
      if (isMissing(error)) return [];
      throw new StoreError('PROBE_STORE_READ', `cannot list ${this.path}`, error);
    }
  }

  /** A dropped file becomes a spare for the next write, or is removed when the pool is full. */
  private retire(name: string): void {
    if (!this.spares.retire(name)) this.remove(name);
  }

  private remove(name: string): void {
    try {
      unlinkSync(path.join(this.path, name));
    } catch (error) {
      if (!isMissing(error)) this.logger?.debug(`could not remove ${name} in ${this.path}`, error);
    }
  }

  private isStale(name: string): boolean {
    try {
      const info = statSync(path.join(this.path, name), { throwIfNoEntry: false });
      // ctime too: a spare claimed as a temp file keeps the mtime of the capture it held (a rename sets ctime).
      return info !== undefined && Date.now() - Math.max(info.mtimeMs, info.ctimeMs) > STALE_TEMP_MS;
    } catch {
      return false;
    }
  }
}

function captureIdOf(name: string): string | null {
  if (!name.endsWith('.json')) return null;
  const id = name.slice(0, -5);
  return isValidCaptureId(id) ? id : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Writes `data` from offset 0 and cuts the file to its length, instead of opening with O_TRUNC: truncating
 * a reused file frees all its blocks first, and on a disk mounted with `discard` and no journal every freed
 * block is discarded before open returns (measured under load: 170 µs per open with O_TRUNC, 12 to 18 µs
 * for this write and cut). Here only the blocks past the new length are freed.
 */
function writeOver(file: string, data: Buffer): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT, 0o666);
  try {
    for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, done);
    ftruncateSync(fd, data.length);
  } finally {
    closeSync(fd);
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}
