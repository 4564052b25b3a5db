import { closeSync, constants, linkSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { decideNote, keyName, type LinkIndex, type LinkNote, type LinkSides, type NoteEntry } from './linkNotes';
import { readSafeText } from '../util/safeRead';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A new note: created, never an existing file or a link planted under its name. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const FILE_MODE = 0o600;
const NOTE_BYTES = 4096;
const TEMP_TAG = `${process.pid}.${randomBytes(4).toString('hex')}`;
let tempCount = 0;

/**
 * The file store's link index: one small file per key and side (`<hash>.call`, `<hash>.request`) in `links/` beside
 * the capture files. A note is created with O_EXCL, so two processes noting one key at once never both win: the
 * second finds the first and marks the key `many` (a rename: whole). No file is ever appended to or shared by two
 * keys, so several services writing one folder need no lock.
 */
export class FileLinks implements LinkIndex {
  readonly folder: string;

  /**
   * `folder`: where the notes go, beside (never inside) the capture folder, so that it holds capture files only.
   * `outside` says why a folder must not be written (a link leading out of `<root>/.probe`), checked before it is made.
   */
  constructor(
    folder: string,
    private readonly outside: (folder: string) => string | null = () => null,
  ) {
    this.folder = folder;
  }

  note(notes: LinkNote[]): void {
    if (!notes.length) return;
    this.ready();
    for (const note of notes) {
      const file = path.join(this.folder, `${keyName(note.key)}.${note.side}`);
      const text = JSON.stringify(note);
      if (this.create(file, text)) continue;
      const decision = decideNote(readEntry(file), note);
      if (decision === 'write') this.replace(file, text);
      else if (decision === 'many') this.replace(file, JSON.stringify({ many: true, at: note.at }));
    }
  }

  async read(keys: string[]): Promise<Map<string, LinkSides>> {
    const out = new Map<string, LinkSides>();
    for (const key of keys) {
      const name = path.join(this.folder, keyName(key));
      const call = readEntry(`${name}.call`);
      const request = readEntry(`${name}.request`);
      if (call || request) out.set(key, { ...(call ? { call } : {}), ...(request ? { request } : {}) });
    }
    return out;
  }

  /** Removes the notes last written before `before` (epoch ms): their captures have left the store. */
  prune(before: number): void {
    for (const name of this.names()) {
      const file = path.join(this.folder, name);
      try {
        const info = lstatSync(file);
        if (info.isFile() && info.mtimeMs < before) unlinkSync(file);
      } catch {
        // removed meanwhile
      }
    }
  }

  clear(): void {
    for (const name of this.names()) {
      try {
        unlinkSync(path.join(this.folder, name));
      } catch {
        // removed meanwhile
      }
    }
  }

  private names(): string[] {
    try {
      return readdirSync(this.folder, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }

  /** The folder, made private; refused when something else (a link) sits under its name. */
  private ready(): void {
    const why = this.outside(this.folder);
    if (why) throw new Error(`refusing to write link notes: ${why}`);
    const info = lstatSync(this.folder, { throwIfNoEntry: false });
    if (info?.isDirectory()) return;
    if (info) throw new Error(`${this.folder} is not a folder`);
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
  }

  /**
   * Creates `file` whole, or returns false when it exists: written to a temp file, then hard-linked under its name
   * (link() never replaces), so a reader or a rival writer never finds it half written.
   */
  private create(file: string, text: string): boolean {
    const temp = this.temp(file);
    writeNew(temp, text);
    try {
      linkSync(temp, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException)?.code === 'EEXIST') return false;
      throw error;
    } finally {
      try {
        unlinkSync(temp);
      } catch {
        // gone already
      }
    }
  }

  private temp(file: string): string {
    return path.join(this.folder, `.${path.basename(file)}.${TEMP_TAG}.${++tempCount}.tmp`);
  }

  private replace(file: string, text: string): void {
    const temp = this.temp(file);
    writeNew(temp, text);
    try {
      renameSync(temp, file);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // gone already
      }
      throw error;
    }
  }
}

function writeNew(file: string, text: string): void {
  const fd = openSync(file, CREATE_FLAGS, FILE_MODE);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A note file's entry; null when absent, unreadable or not a note. */
function readEntry(file: string): NoteEntry | null {
  try {
    const value = JSON.parse(readSafeText(file, { maxBytes: NOTE_BYTES })) as NoteEntry;
    return value && typeof value === 'object' && typeof value.at === 'number' ? value : null;
  } catch {
    return null;
  }
}
