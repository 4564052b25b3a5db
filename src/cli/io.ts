import { terminalText } from '../util/terminalText';

/** Where a CLI command writes; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Everything a command prints passes through `terminalText`: recorded text cannot drive the terminal, and
 * JSON (`--json`, HAR) stays the same JSON.
 */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(lineOf(text)),
  err: (text) => process.stderr.write(lineOf(text)),
  cwd: process.cwd(),
  env: process.env,
};

/** A command: parses its own argv with node:util parseArgs and returns the exit code. */
export type CliCommand = (argv: string[], io: CliIo) => Promise<number>;

function lineOf(text: string): string {
  const safe = terminalText(text, '\n');
  return safe.endsWith('\n') ? safe : safe + '\n';
}
