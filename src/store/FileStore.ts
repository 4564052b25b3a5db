import { mkdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Store } from './Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { indexRowOf, isValidCaptureId } from '../capture/index-row';
import { orderKeyOf, parseRowName, rowNameOf } from './order-key';
import { StoreError } from './StoreError';

export interface FileStoreOptions {
  /** Folder of the capture files (absolute, or relative to the working directory). */
  path: string;
  /** Most recent captures kept. */
  limit: number;
  logger?: Logger;
}

/** Temp files left by a writer that died between write and rename are removed after this long. */
const STALE_TEMP_MS = 60_000;
const ROWS_PER_SLICE = 50;

/**
 * One JSON file per capture (`<id>.json`) plus a small index-row file named by its order key
 * (`<started_at µs>-<id>.row`), both written atomically (temp file + rename). `index()` reads only the row
 * files, so it costs the same whatever the captures weigh; the trim sorts file names and never opens a file.
 *
 * Concurrency without locks: a put writes the capture, then its row (a row means "committed"), then trims
 * to the `limit` newest rows it sees. A trim only deletes a row that has at least `limit` newer rows beside
 * it, so the newest `limit` captures are never deleted, and the last trim to run sees every committed row:
 * once all writers are done exactly `limit` remain, however many processes wrote at once.
 */
export class FileStore implements Store {
  readonly path: string;
  readonly limit: number;
  private readonly logger: Logger | undefined;
  private folderMade = false;

  constructor(options: FileStoreOptions) {
    this.path = path.resolve(options.path);
    this.limit = Math.max(1, Math.floor(options.limit));
    this.logger = options.logger;
  }

  async put(capture: Capture): Promise<void> {
    if (!isValidCaptureId(capture?.id)) throw new StoreError('PROBE_STORE_BAD_ID', `refusing to store a capture with id ${JSON.stringify(capture?.id)}`);
    const row = indexRowOf(capture);
    const rowName = rowNameOf(orderKeyOf(row.started_at), capture.id);
    await this.writeAtomic(`${capture.id}.json`, JSON.stringify(capture));
    await this.writeAtomic(rowName, JSON.stringify(row));
    await this.trim();
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
    const rows = (await this.list())
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
    return out;
  }

  async clear(): Promise<void> {
    const names = await this.list();
    const rows = names.map(parseRowName).filter((row) => row !== null);
    // Rows first, so a reader never sees a row whose capture is already gone for long. A capture without a
    // row is a put in progress in another process: it stays, so the row its writer adds next finds it.
    await Promise.all(rows.map((row) => this.remove(row.name)));
    const cleared = new Set(rows.map((row) => row.id));
    for (const name of names) {
      const id = captureIdOf(name);
      if (id && (cleared.has(id) || (await this.isStale(name)))) await this.remove(name);
    }
  }

  async close(): Promise<void> {}

  /** Removes the oldest rows beyond the limit, their captures, captures without a row that are older still, and stale temp files. */
  private async trim(): Promise<void> {
    const names = await this.list();
    const rows = names.map(parseRowName).filter((row) => row !== null).sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const kept = new Set<string>();
    const dropped: string[] = [];
    for (const row of rows) {
      // A second row of one id (re-put with another start time): the newest row stands.
      if (kept.has(row.id)) dropped.push(row.name);
      else if (kept.size < this.limit) kept.add(row.id);
      else dropped.push(row.name);
    }
    for (const name of dropped) {
      const parsed = parseRowName(name)!;
      await this.remove(name);
      if (!kept.has(parsed.id)) await this.remove(`${parsed.id}.json`);
    }
    if (dropped.length === 0) return;
    // Capture files whose row is gone (a writer died between the two renames, or lost a race with a trim).
    const rowIds = new Set(rows.map((row) => row.id));
    const oldestKept = rows.filter((row) => kept.has(row.id)).at(-1)?.id;
    for (const name of names) {
      const id = captureIdOf(name);
      if (id && !rowIds.has(id) && oldestKept !== undefined && id < oldestKept && (await this.isStale(name))) await this.remove(name);
      if (name.startsWith('.') && name.endsWith('.tmp') && (await this.isStale(name))) await this.remove(name);
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

  private async writeAtomic(name: string, text: string): Promise<void> {
    const temp = path.join(this.path, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    this.ensureFolder();
    try {
      await writeFile(temp, text);
    } catch (error) {
      if (!isMissing(error)) throw error;
      this.folderMade = false; // the folder was removed under us
      this.ensureFolder();
      await writeFile(temp, text);
    }
    try {
      await rename(temp, path.join(this.path, name));
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }

  private ensureFolder(): void {
    if (this.folderMade) return;
    mkdirSync(this.path, { recursive: true });
    this.folderMade = true;
  }

  private async list(): Promise<string[]> {
    try {
      return await readdir(this.path);
    } catch (error) {
      if (isMissing(error)) return [];
      throw new StoreError('PROBE_STORE_READ', `cannot list ${this.path}`, error);
    }
  }

  private async remove(name: string): Promise<void> {
    await unlink(path.join(this.path, name)).catch((error: unknown) => {
      if (!isMissing(error)) this.logger?.debug(`could not remove ${name} in ${this.path}`, error);
    });
  }

  private async isStale(name: string): Promise<boolean> {
    const info = await stat(path.join(this.path, name)).catch(() => null);
    return info !== null && Date.now() - info.mtimeMs > STALE_TEMP_MS;
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

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}
