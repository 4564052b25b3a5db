import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CliIo } from './io';
import { terminalText } from '../util/terminalText';

/**
 * What `probe export` made, to `--out` (then one line on stderr says what went where) or else to stdout: the
 * one way both exports (HAR, mocks) hand their text over.
 */
export function writeExport(io: CliIo, out: string | undefined, text: string, written: (file: string) => string): void {
  if (!out) {
    io.out(text.endsWith('\n') ? text.slice(0, -1) : text);
    return;
  }
  const file = path.resolve(io.cwd, out);
  writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
  // One line whatever a capture's name holds: its newlines are escaped like every other control character.
  io.err(`probe export: ${terminalText(written(file))}`);
}
