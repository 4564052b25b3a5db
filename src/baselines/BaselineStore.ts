import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Capture } from '../capture/types';
import { isValidCaptureId } from '../capture/indexRow';
import { folderOutside } from '../store/folderGuard';
import { StoreError } from '../store/StoreError';
import type { Baseline, BaselineEntry } from './types';
import { MAX_TEXT_BYTES, readSafeTextAsync } from '../util/safeRead';

/**
 * Captures kept by name to compare later runs with (`probe baseline save`), in `<root>/.probe/baselines`, one
 * file per baseline, outside the store and so outside `storage.limit` and any driver's expiry. Written as
 * the file store writes captures: the folder checked to lie inside `<root>/.probe` (no link leading out),
 * a new temp file (O_EXCL, O_NOFOLLOW) renamed into place, and, being kept on purpose, private to the user
 * (folder 0700, files 0600). Reads and removals never go through a link (see unsafe()) nor open anything but a
 * regular file.
 */
export const BASELINE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const BASELINE_NAME_RULE = '1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const SUFFIX = '.json';

export class BaselineStore {
  readonly folder: string;
  private readonly probeDir: string;

  constructor(root: string) {
    this.probeDir = path.join(root, '.probe');
    this.folder = path.join(this.probeDir, 'baselines');
  }

  /** A name for a baseline of this capture when none is given: its name as letters, digits and dashes. */
  static defaultName(capture: Pick<Capture, 'name' | 'id'>): string {
    const slug = capture.name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 64)
      .replace(/-+$/, '');
    return BASELINE_NAME.test(slug) ? slug : capture.id;
  }

  save(name: string, capture: Capture, now = Date.now() / 1000): Baseline {
    if (!BASELINE_NAME.test(name)) throw new StoreError('PROBE_STORE_BAD_NAME', `baseline name ${JSON.stringify(name)} is not valid: ${BASELINE_NAME_RULE}`);
    if (!isValidCaptureId(capture?.id)) throw new StoreError('PROBE_STORE_BAD_ID', 'refusing to keep a capture without a valid id');
    this.ensureFolder();
    const baseline: Baseline = { name, saved_at: now, capture };
    const temp = path.join(this.folder, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const fd = openSync(temp, CREATE_FLAGS, 0o600);
    try {
      writeSync(fd, JSON.stringify(baseline));
    } catch (error) {
      closeSync(fd);
      unlinkSync(temp);
      throw error;
    }
    closeSync(fd);
    try {
      renameSync(temp, path.join(this.folder, name + SUFFIX));
    } catch (error) {
      unlinkSync(temp);
      throw error;
    }
    return baseline;
  }

  /**
   * Why the folder is neither read nor changed, or null: it must be a real folder (not a link) whose real path lies
   * inside `<root>/.probe`. A repository can commit `.probe/baselines` as a link to any folder; removing or listing
   * through it would delete or show that folder's `.json` files.
   */
  unsafe(): string | null {
    const info = lstatSync(this.folder, { throwIfNoEntry: false });
    if (!info) return null;
    if (!info.isDirectory()) return `${this.folder} is ${info.isSymbolicLink() ? 'a link' : 'not a folder'}: baselines are not read or removed through it`;
    return folderOutside(this.folder, this.probeDir);
  }

  async find(name: string): Promise<Baseline | null> {
    const read = await this.read(name);
    return read && 'baseline' in read ? read.baseline : null;
  }

  /**
   * Why the file kept under `name` is not a baseline (not JSON, another name inside, no capture shape: a hand
   * edit, a truncated copy), or null when it is one or there is none. A diff against it is then a bad input.
   */
  async problem(name: string): Promise<string | null> {
    const read = await this.read(name);
    return read && 'problem' in read ? read.problem : null;
  }

  private async read(name: string): Promise<{ baseline: Baseline } | { problem: string } | null> {
    if (!BASELINE_NAME.test(name) || this.unsafe()) return null;
    let text: string;
    try {
      text = await readSafeTextAsync(path.join(this.folder, name + SUFFIX), { maxBytes: MAX_TEXT_BYTES });
    } catch (error) {
      return (error as NodeJS.ErrnoException)?.code === 'ENOENT' ? null : { problem: `cannot be read (${(error as Error).message})` };
    }
    let parsed: Partial<Baseline>;
    try {
      parsed = JSON.parse(text) as Partial<Baseline>;
    } catch {
      return { problem: 'is not JSON' };
    }
    const why = parsed?.name !== name ? `names ${JSON.stringify(String(parsed?.name)).slice(0, 80)} inside` : captureProblem(parsed.capture);
    if (why) return { problem: why };
    return { baseline: { name, saved_at: Number(parsed.saved_at) || 0, capture: parsed.capture! } };
  }

  /** Every baseline, newest saved first; unreadable files are skipped. */
  async list(): Promise<BaselineEntry[]> {
    const out: BaselineEntry[] = [];
    for (const name of this.names()) {
      const baseline = await this.find(name);
      if (!baseline) continue;
      const { capture } = baseline;
      out.push({
        name,
        saved_at: baseline.saved_at,
        id: capture.id,
        type: capture.type,
        capture_name: capture.name,
        status: capture.status,
        calls: Array.isArray(capture.sections?.http) ? capture.sections.http.length : 0,
      });
    }
    return out.sort((a, b) => b.saved_at - a.saved_at);
  }

  /** True when it was there. Only a regular file of that name is removed. */
  remove(name: string): boolean {
    if (!BASELINE_NAME.test(name) || !this.names().includes(name)) return false;
    try {
      unlinkSync(path.join(this.folder, name + SUFFIX));
      return true;
    } catch {
      return false;
    }
  }

  private names(): string[] {
    try {
      if (this.unsafe()) return [];
      return readdirSync(this.folder, { withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith(SUFFIX))
        .map((entry) => entry.name.slice(0, -SUFFIX.length))
        .filter((name) => BASELINE_NAME.test(name));
    } catch {
      return [];
    }
  }

  private ensureFolder(): void {
    const outside = folderOutside(this.folder, this.probeDir);
    if (outside) throw new StoreError('PROBE_STORE_UNSAFE_PATH', `refusing to write baselines: ${outside}`);
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
  }
}

/** What keeps a baseline's capture from being compared (the fields a diff reads), or null. */
function captureProblem(capture: unknown): string | null {
  const value = capture as Partial<Capture> | null | undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'holds no capture';
  if (!isValidCaptureId(value.id)) return 'holds a capture without a valid id';
  for (const key of ['name', 'type', 'status'] as const) if (typeof value[key] !== 'string') return `holds a capture whose ${key} is not text`;
  const rows = value.sections?.http;
  if (!value.sections || typeof value.sections !== 'object') return 'holds a capture without sections';
  if (
    rows !== undefined &&
    (!Array.isArray(rows) || !rows.every((row) => row && typeof row === 'object' && typeof row.method === 'string' && typeof row.url === 'string'))
  )
    return 'holds http rows that are not calls';
  return null;
}
