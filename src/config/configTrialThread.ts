/**
 * The trial of a config file (configTrial.ts), on a worker thread: loads it, reads it whole (every getter runs),
 * runs its register() with the real extendStore, and says how that went through the shared state, once. An
 * endless loop is stopped by the app's thread at the deadline; process.exit() ends only this thread, said here.
 */
import { workerData } from 'node:worker_threads';
import { HEADER_BYTES, MESSAGE_BYTES, MESSAGE_ROOM, OUTCOME, Outcome } from './configTrial';
import { loadFailure, messageOf } from './loadFailure';

const { file, shared } = workerData as { file: string; shared: SharedArrayBuffer };
const state = new Int32Array(shared, 0, 2);

function finish(outcome: number, message = ''): void {
  if (Atomics.load(state, OUTCOME) !== Outcome.running) return;
  const bytes = Buffer.from(message, 'utf8').subarray(0, MESSAGE_ROOM);
  new Uint8Array(shared, HEADER_BYTES, MESSAGE_ROOM).set(bytes);
  Atomics.store(state, MESSAGE_BYTES, bytes.length);
  Atomics.store(state, OUTCOME, outcome);
  Atomics.notify(state, OUTCOME);
}

process.on('exit', (code) => finish(Outcome.failed, `called process.exit(${code}) while loading: a config must not end the process`));

/** Reads every own enumerable member, nested (bounded: a getter may make a new object at every read). */
function readWhole(value: unknown, depth = 0, seen = new Set<object>()): void {
  if (value === null || typeof value !== 'object' || depth > 20 || seen.has(value) || seen.size > 10_000) return;
  seen.add(value);
  for (const key of Object.keys(value)) readWhole((value as Record<string, unknown>)[key], depth + 1, seen);
}

let stage = 'load';
try {
  const loaded = require(file) as Record<string, unknown>;
  stage = 'read';
  const config = (loaded && typeof loaded === 'object' && 'default' in loaded ? loaded.default : loaded) as Record<string, unknown> | null;
  readWhole(loaded);
  readWhole(config);
  const register = loaded?.register ?? config?.register;
  stage = 'register';
  if (typeof register === 'function') {
    // The trial asks only whether register() returns: what it registers counts in the app, where the real
    // extendStore checks it (this thread's registrations would be dropped with the thread anyway).
    const extendStore = (_name: unknown, _factory: unknown): void => undefined;
    (register as (probe: unknown) => void).call(config, { extendStore });
  }
  finish(Outcome.loaded);
} catch (error) {
  const message =
    stage === 'load' ? loadFailure(file, error) : stage === 'read' ? `threw when read: ${messageOf(error)}` : `register() threw: ${messageOf(error)}`;
  finish(Outcome.failed, message);
}
