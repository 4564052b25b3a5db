import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { STORE_THREAD_EXEC_ARGV, WRITE_THREAD_MARK } from '../util/threadMark';

/**
 * A config file is code: it could loop forever or call process.exit() and hang or end the app before its first
 * line. So it is tried first on a worker thread (configTrialThread.ts), where an endless loop is cut at a deadline
 * and process.exit() ends only that thread; the app's thread waits for it synchronously (Atomics.wait: the
 * preload must decide before the app's code runs). Only a file whose trial loaded, was read whole and ran its
 * register() is then loaded on the app's thread. The trial's output is dropped: the app's own load prints it.
 */
export const TRIAL_DEADLINE_MS = 10_000;

/** The slots of the shared state: [0] outcome (0 while running), [1] bytes of the message that follows. */
export const OUTCOME = 0;
export const MESSAGE_BYTES = 1;
export const HEADER_BYTES = 8;
export const MESSAGE_ROOM = 1024;
export const Outcome = { running: 0, loaded: 1, failed: 2 } as const;

/** The compiled thread script: beside this file, or in dist/ when this runs from the TypeScript sources (tests). */
const THREAD_SCRIPT = [path.join(__dirname, 'configTrialThread.js'), path.join(__dirname, '..', '..', 'dist', 'config', 'configTrialThread.js')].find((file) =>
  existsSync(file),
);
/** Files tried in this process, by path and modification time: the CLI and an app load their config more than once. */
const tried = new Map<string, string | null>();

/** Why the config file cannot be loaded safely (one phrase), or null when its trial went through. */
export function configTrialFailure(file: string, mtimeMs: number, env: NodeJS.ProcessEnv, deadlineMs = TRIAL_DEADLINE_MS): string | null {
  const key = `${file}\0${mtimeMs}`;
  if (tried.has(key)) return tried.get(key)!;
  const failure = runTrial(file, env, deadlineMs);
  tried.set(key, failure);
  return failure;
}

function runTrial(file: string, env: NodeJS.ProcessEnv, deadlineMs: number): string | null {
  // No thread script (a partial install): loaded as before, on the app's thread.
  if (!THREAD_SCRIPT) return null;
  const shared = new SharedArrayBuffer(HEADER_BYTES + MESSAGE_ROOM);
  const state = new Int32Array(shared, 0, 2);
  let worker: Worker;
  try {
    worker = new Worker(THREAD_SCRIPT, {
      workerData: { [WRITE_THREAD_MARK]: true, file, shared },
      // As the store's thread: the config's `probe` import gets the light entry, and no warnings of its own.
      execArgv: STORE_THREAD_EXEC_ARGV,
      env,
      stdout: true,
      stderr: true,
    });
  } catch {
    // No thread to try it on (a runtime without workers): loaded as before, on the app's thread.
    return null;
  }
  worker.unref();
  Atomics.wait(state, OUTCOME, Outcome.running, deadlineMs);
  // Read before the thread is stopped: its exit would otherwise be taken for the config's own process.exit().
  const outcome = Atomics.load(state, OUTCOME);
  const length = Atomics.load(state, MESSAGE_BYTES);
  const message = Buffer.from(new Uint8Array(shared, HEADER_BYTES, length)).toString('utf8');
  // Stops an endless loop too (V8 interrupts it); the thread has nothing left to do otherwise.
  void worker.terminate().catch(() => undefined);
  if (outcome === Outcome.running) return `did not finish loading within ${deadlineMs / 1000} s (an endless loop?)`;
  if (outcome === Outcome.loaded) return null;
  return message || 'could not be loaded';
}
