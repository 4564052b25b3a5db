/**
 * The preload: `node --require probe/register app.js` or `node --import probe/register app.mjs`.
 * It never throws: a broken config prints one line to stderr and the app runs unrecorded.
 */
import path from 'node:path';
import { start } from './runtime/start';
import { ProbeConfigError } from './config/errors';

function isProbeCli(): boolean {
  const script = process.argv[1] ?? '';
  return path.resolve(script).startsWith(path.resolve(__dirname) + path.sep);
}

try {
  if (!isProbeCli()) start();
} catch (error) {
  const why = error instanceof ProbeConfigError ? `bad configuration: ${error.message}` : `could not start: ${(error as Error)?.message ?? error}`;
  try {
    process.stderr.write(`[probe] ${why} (the app runs unrecorded)\n`);
  } catch {
    // nothing else to do
  }
}
