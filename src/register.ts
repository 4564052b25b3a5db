/**
 * The preload: `node --require probe/register app.js` or `node --import probe/register app.mjs`.
 * It never throws: a broken config prints one line to stderr and the app runs unrecorded.
 */
import path from 'node:path';
import { realpathSync } from 'node:fs';
import workerThreads from 'node:worker_threads';
import type * as StartModule from './start';
import { ProbeConfigError } from './config/ProbeConfigError';
import { LOADER_THREAD_MARK } from './lens/esmHook';
import { WRITE_THREAD_MARK } from './util/threadMark';
import { shareAppApi } from './runtime/appApiPath';

/** Node runs preloads in its ESM loader thread too, and maybe in Probe's own write thread: no app there. */
function isLoaderThread(): boolean {
  if ((workerThreads as { isInternalThread?: boolean }).isInternalThread) return true;
  if ((workerThreads.workerData as Record<string, unknown> | undefined)?.[WRITE_THREAD_MARK]) return true;
  return !workerThreads.isMainThread && process.env[LOADER_THREAD_MARK] === '1';
}

/** Probe's own CLI (also through a node_modules/.bin link) never records itself. */
function isProbeCli(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  let real = path.resolve(script);
  try {
    real = realpathSync(real);
  } catch {
    // not a file: not the CLI
  }
  return real.startsWith(path.resolve(__dirname) + path.sep);
}

try {
  // Loaded only where it runs: the loader thread must not pay for Probe's module graph.
  if (!isLoaderThread() && !isProbeCli()) {
    // Before anything of Probe loads @opentelemetry/api: Probe's files then use the app's copy (see appApiPath.ts).
    shareAppApi(path.resolve(process.env.PROBE_ROOT ?? process.cwd()));
    (require('./start') as typeof StartModule).start();
  }
} catch (error) {
  const why = error instanceof ProbeConfigError ? `bad configuration: ${error.message}` : `could not start: ${(error as Error)?.message ?? error}`;
  try {
    process.stderr.write(`[probe] ${why} (the app runs unrecorded)\n`);
  } catch {
    // nothing else to do
  }
}
