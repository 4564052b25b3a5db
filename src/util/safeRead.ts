import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { constants as bufferConstants } from 'node:buffer';

/**
 * Every file Probe reads (configuration aside: that one is code the app runs anyway) is read through here, so a
 * name under `.probe` or in the app's tree cannot hang or swell the process that reads it. A repository can commit
 * any of these names as a link (to `/dev/zero`, to another user's file), and anyone who can write the folder can
 * plant a FIFO there:
 *
 * - opened with O_NONBLOCK: a FIFO's open returns at once, and fstat refuses it (only a regular file is read);
 * - opened with O_NOFOLLOW unless `follow` (Probe's own files are never reached through a link; the app's files,
 *   source maps and bundles, are: pnpm's node_modules are links);
 * - `ownOnly`: a file another user owns is not one Probe wrote;
 * - at most `maxBytes`: a larger file is refused whole, and at most `maxBytes + 1` bytes are ever read (a file that
 *   grows after fstat cannot take more).
 *
 * A refusal throws a SafeReadError (callers that skip what they cannot read already catch); a missing file throws
 * the ENOENT that fs throws.
 */
export interface SafeReadOptions {
  /** Largest file read; a larger one is refused. */
  maxBytes: number;
  /** Reach the file through a link (the app's own files). Default: a link is refused (ELOOP). */
  follow?: boolean;
  /** Refuse a file owned by another user (Probe's own files). Default false. */
  ownOnly?: boolean;
}

export type SafeReadCode = 'PROBE_FILE_NOT_REGULAR' | 'PROBE_FILE_TOO_LARGE' | 'PROBE_FILE_NOT_OWNED';

export class SafeReadError extends Error {
  readonly code: SafeReadCode;
  constructor(code: SafeReadCode, file: string, why: string) {
    super(`${file}: ${why}`);
    this.name = 'SafeReadError';
    this.code = code;
  }
}

/** A package.json, a tsconfig, a build manifest: far larger than any real one. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** A script or bundle of the app read for its text (the same bound as a source map's). */
export const MAX_CODE_BYTES = 64 * 1024 * 1024;
/** The longest string V8 makes: a file longer than this cannot be read as text anyway. */
export const MAX_TEXT_BYTES = bufferConstants.MAX_STRING_LENGTH;

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const CHUNK = 1024 * 1024;

function flagsOf(options: SafeReadOptions): number {
  return constants.O_RDONLY | NONBLOCK | (options.follow ? 0 : NOFOLLOW);
}

/** Why an opened file is not read, or null. */
function refusal(file: string, info: Stats, options: SafeReadOptions): SafeReadError | null {
  if (!info.isFile()) return new SafeReadError('PROBE_FILE_NOT_REGULAR', file, 'not a regular file');
  if (info.size > options.maxBytes) return new SafeReadError('PROBE_FILE_TOO_LARGE', file, `larger than ${options.maxBytes} bytes`);
  if (options.ownOnly && typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    return new SafeReadError('PROBE_FILE_NOT_OWNED', file, 'owned by another user');
  }
  return null;
}

function tooLarge(file: string, options: SafeReadOptions): SafeReadError {
  return new SafeReadError('PROBE_FILE_TOO_LARGE', file, `larger than ${options.maxBytes} bytes`);
}

/**
 * Opens `file` as a checked regular file and returns its descriptor and size (the caller closes it): for readers
 * that take only parts of a file (the head of a capture file). Throws as readSafe does.
 */
export function openSafe(file: string, options: SafeReadOptions): { fd: number; size: number } {
  const fd = openSync(file, flagsOf(options));
  try {
    const info = fstatSync(fd);
    const why = refusal(file, info, options);
    if (why) throw why;
    return { fd, size: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The bytes of `file`, checked as the options say. */
export function readSafe(file: string, options: SafeReadOptions): Buffer {
  const { fd, size } = openSafe(file, options);
  try {
    const parts: Buffer[] = [];
    let total = 0;
    // First the size fstat gave, plus one byte: a file that grew since is read on, and refused past the limit.
    let next = Math.min(size, options.maxBytes) + 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(next, options.maxBytes + 1 - total));
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      parts.push(got === chunk.length ? chunk : chunk.subarray(0, got));
      total += got;
      if (total > options.maxBytes) throw tooLarge(file, options);
      next = CHUNK;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
  } finally {
    closeSync(fd);
  }
}

/** The UTF-8 text of `file`, checked as the options say. */
export function readSafeText(file: string, options: SafeReadOptions): string {
  return readSafe(file, options).toString('utf8');
}

/** readSafe without blocking the event loop (a dashboard or the MCP server reading a large capture). */
export async function readSafeAsync(file: string, options: SafeReadOptions): Promise<Buffer> {
  const handle = await open(file, flagsOf(options));
  try {
    const info = await handle.stat();
    const why = refusal(file, info, options);
    if (why) throw why;
    const parts: Buffer[] = [];
    let total = 0;
    let next = Math.min(info.size, options.maxBytes) + 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(next, options.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      parts.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(file, options);
      next = CHUNK;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
  } finally {
    await handle.close();
  }
}

/** The UTF-8 text of `file`, read as readSafeAsync reads it. */
export async function readSafeTextAsync(file: string, options: SafeReadOptions): Promise<string> {
  return (await readSafeAsync(file, options)).toString('utf8');
}
