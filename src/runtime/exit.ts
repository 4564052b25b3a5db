import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Recorder } from './Recorder';
import type { CaptureWriter } from './CaptureWriter';
import type { Capture } from '../capture/types';

const SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;

/**
 * Keeps captures across every way a process ends. A normal end gets async writes at `beforeExit`;
 * `process.exit()`, an uncaught exception and SIGINT/SIGTERM store synchronously, since nothing async runs
 * after 'exit': directly when the driver can (file), else through a short-lived writer process that stores
 * through the same config (any driver).
 */
export function installExitHooks(recorder: Recorder, writer: CaptureWriter): () => void {
  let crashed = false;
  let done = false;

  const onBeforeExit = () => {
    if (!recorder.processUnit.closed) recorder.closeAll(Number(process.exitCode ?? 0), 'exit');
    if (!writer.idle) void writer.flush();
  };
  const finalSync = (code: number) => {
    if (done) return;
    done = true;
    recorder.closeAll(code, crashed ? 'error' : 'exit');
    const captures = [...writer.unconfirmed(), ...writer.takeQueued()];
    writer.sayLost();
    if (captures.length && !writer.putAllSync(captures)) writeSync(recorder, captures);
  };
  const onExit = (code: number) => finalSync(code);
  const onCrash = () => {
    crashed = true;
  };
  const onSignal = (signal: keyof typeof SIGNALS) => {
    // Only when Probe's is the sole listener: then the app relies on the default (die), which we redo.
    if (process.listenerCount(signal) > 1) return;
    finalSync(128 + SIGNALS[signal]);
    process.removeListener(signal, handlers[signal]);
    process.kill(process.pid, signal);
  };
  const handlers = { SIGINT: () => onSignal('SIGINT'), SIGTERM: () => onSignal('SIGTERM') };

  process.on('beforeExit', onBeforeExit);
  process.on('exit', onExit);
  process.on('uncaughtExceptionMonitor', onCrash);
  process.on('SIGINT', handlers.SIGINT);
  process.on('SIGTERM', handlers.SIGTERM);
  return () => {
    process.removeListener('beforeExit', onBeforeExit);
    process.removeListener('exit', onExit);
    process.removeListener('uncaughtExceptionMonitor', onCrash);
    process.removeListener('SIGINT', handlers.SIGINT);
    process.removeListener('SIGTERM', handlers.SIGTERM);
  };
}

function writeSync(recorder: Recorder, captures: Capture[]): void {
  const { config } = recorder;
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', PROBE_ROOT: config.root };
    if (config.configFile) env.PROBE_CONFIG = config.configFile;
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
