/** Where a CLI command writes; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
  cwd: process.cwd(),
  env: process.env,
};

/** A command: parses its own argv with node:util parseArgs and returns the exit code. */
export type CliCommand = (argv: string[], io: CliIo) => Promise<number>;
