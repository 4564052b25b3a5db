import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Source maps and folders made by hand for the origin tests, where a real bundler's output would hide the case. */

/** A VLQ-encoded mapping segment value: generated column, source index delta, original line or column delta. */
export function vlq(value: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    out += chars[digit];
  } while (rest > 0);
  return out;
}

/** A map sending generated line `from` (1-based), from column 0 on, to `source` line `to` (1-based). */
export function lineMap(source: string, from: number, to: number): string {
  return JSON.stringify({ version: 3, sources: [source], names: [], mappings: ';'.repeat(from - 1) + vlq(0) + vlq(0) + vlq(to - 1) + vlq(0) });
}

/** A fresh folder (its real path) holding `files`, named after `prefix`. */
export function folder(files: Record<string, string>, prefix = 'probe-origin-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}
