import path from 'node:path';

/**
 * The folder of Probe's own code: `dist/` when installed or built, `src/` when run from source. Not the package
 * root: a checkout's `examples/` and test apps are apps, and their frames are the code lines rows show.
 */
export const PROBE_CODE_DIR = path.resolve(__dirname, '..') + path.sep;

/** Whether a stack frame's file is Probe's own code. */
export function isProbeCode(file: string): boolean {
  return file.startsWith(PROBE_CODE_DIR);
}
