import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { answerFlushes, type ThreadFlusher } from './threads';
import { hideListeners } from './hiddenListeners';
import type { Recorder } from './Recorder';
import type { CaptureWriter } from './CaptureWriter';
import type { Capture } from '../capture/types';

/**
 * The signals whose default action ends the process and that a person or a tool sends to stop or restart it:
 * Ctrl-C, `kill`, a closed terminal (SIGHUP) and nodemon's restart (SIGUSR2, its default `signal`).
 */
const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGUSR2: 12 } as const;
type ExitSignal = keyof typeof SIGNALS;

/**
 * Keeps captures across every way a process ends. A normal end gets async writes at `beforeExit`;
 * `process.exit()`, an uncaught exception and SIGHUP/SIGINT/SIGTERM/SIGUSR2 store synchronously, since nothing async runs
 * after 'exit': directly when the driver can (file), else through a short-lived writer process that stores
 * through the same config (any driver).
 */
export function installExitHooks(recorder: Recorder, writer: CaptureWriter, threads: ThreadFlusher): () => void {
  let crashed = false;
  let done = false;

  const onBeforeExit = () => {
    // The app's 'exit' listeners may still set the exit code (Mocha sets `process.exitCode` in one: lib/cli/
    // run-helpers.js exitMochaLater): Probe's listener moves behind every one registered by now, and reads the
    // code they leave.
    process.removeListener('exit', onExit);
    process.on('exit', onExit);
    // A thread stores synchronously as it ends: the process may be ended by a signal a moment later, and nothing
    // async of a thread survives that.
    if (!isMainThread) return finalSync(Number(process.exitCode ?? 0));
    if (!recorder.processUnit.closed) recorder.closeAll(Number(process.exitCode ?? 0), 'exit');
    // What is left is stored now when the driver can (the file store): handed to its write thread, the last
    // captures could start that thread and hold the ending process for its start-up, which a runner notices
    // (Jest reports a process that outlives its run by a second). Other drivers store them asynchronously.
    // The store's thread finishes the units it was handed first: a later version of a unit stored while it ran
    // (the process's command capture) is written here after them, never under them; or, when the thread keeps its
    // earlier calls, handed to it with only its new ones (handKeptSync).
    writer.handKeptSync();
    writer.settleHandedSync();
    const left = writer.takeQueued();
    if (left.length && !writer.putAllSync(left)) for (const capture of left) writer.put(capture);
    if (!writer.idle) void writer.flush();
  };
  const finalSync = (code: number) => {
    if (done) return;
    done = true;
    // Closed at 'beforeExit' with the code known then: stored again with the real one when a listener changed it.
    recorder.correctExitCode(code);
    // The app's threads first: the process's end (a signal, process.exit()) kills them without a word.
    if (isMainThread) threads.flushAllSync(code);
    recorder.closeAll(code, crashed ? 'error' : 'exit');
    // Units the store's thread was handed: it is still running, and finishes them while this thread waits.
    writer.handKeptSync();
    writer.settleHandedSync();
    const captures = [...writer.unconfirmed(), ...writer.takeQueued()];
    if (captures.length && !writer.putAllSync(captures)) writeSync(recorder, captures);
    // After the last writes: a capture that fails at exit is in the count.
    writer.sayLost();
  };
  // The code the process exits with is `process.exitCode` as the last listener leaves it (process.exit(n) sets it
  // too); the argument is the code when 'exit' was emitted.
  const onExit = (code: number) => finalSync(exitCodeNow(code));
  const onCrash = () => {
    crashed = true;
  };
  const onSignal = (signal: ExitSignal) => {
    // Only when Probe's is the sole listener: then the app relies on the default (die), which we redo.
    if (process.listenerCount(signal) > 1) return;
    // A test runner stopping its idle pool worker ends it as it meant to: exit 0, not a kill (see idleTestWorker).
    finalSync(signal === 'SIGTERM' && recorder.idleTestWorker() ? 0 : 128 + SIGNALS[signal]);
    process.removeListener(signal, handlers[signal]);
    process.kill(process.pid, signal);
  };
  const signals = Object.keys(SIGNALS) as ExitSignal[];
  const handlers = Object.fromEntries(signals.map((signal) => [signal, () => onSignal(signal)])) as Record<ExitSignal, () => void>;

  // A thread ended by worker.terminate() runs no listener: it is asked to store first (runtime/threads).
  const stopAnswering = answerFlushes((code) => finalSync(code));
  process.on('beforeExit', onBeforeExit);
  process.on('exit', onExit);
  process.on('uncaughtExceptionMonitor', onCrash);
  for (const signal of signals) process.on(signal, handlers[signal]);
  const unhide = hideListeners(signals, new Set(Object.values(handlers)));
  return () => {
    unhide();
    stopAnswering();
    process.removeListener('beforeExit', onBeforeExit);
    process.removeListener('exit', onExit);
    process.removeListener('uncaughtExceptionMonitor', onCrash);
    for (const signal of signals) process.removeListener(signal, handlers[signal]);
  };
}

function exitCodeNow(emitted: number): number {
  const code = Number(process.exitCode ?? emitted);
  return Number.isInteger(code) ? code : emitted;
}

function writeSync(recorder: Recorder, captures: Capture[]): void {
  const { config } = recorder;
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', PROBE_ROOT: config.root };
    if (config.configFile) env.PROBE_CONFIG = config.configFile;
    // node:child_process is loaded only on this path (captures left to write at a forced exit).
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const result = spawnSync(process.execPath, [path.join(__dirname, 'exitWriter.js')], {
      input: JSON.stringify(captures),
      cwd: config.root,
      env,
      stdio: ['pipe', 'ignore', 'pipe'],
      timeout: 15_000,
      maxBuffer: 1024 * 1024,
    });
    if (result.status !== 0)
      recorder.logger.warn(`could not store ${captures.length} capture(s) at exit: ${String(result.stderr ?? result.error ?? '').trim()}`);
  } catch (error) {
    recorder.logger.warn('could not store captures at exit', error);
  }
}
