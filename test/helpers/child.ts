import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { after } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
// @ts-expect-error plain .mjs shared with the runner's watchdog (scripts/test-watchdog.mjs)
import { liveChildren, killAll, killGroup } from '../../scripts/test-children.mjs';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface StartOptions extends Omit<SpawnOptions, 'detached'> {
  /**
   * `test` (default): killed when the test that started it ends. `file`: killed when the file's last test has run
   * (a server started in a `before` hook: node:test runs an `after` registered inside a hook when the hook ends).
   */
  lifetime?: 'test' | 'file';
}

/** Generous limits: the machine runs up to nine sessions on 2 cores, a preload has taken 20 s to load there. */
export const RUN_TIMEOUT = 180_000;
export const READY_TIMEOUT = 180_000;

const children = liveChildren() as Set<ChildProcess>;

// Registered at the file's top level (this module is imported there): runs once every test of the file is done,
// so no child keeps the file's process alive.
after(() => killAll());

/**
 * Every child process a test starts goes through here: in a process group of its own (so its own children go with
 * it), killed when the test ends, passed or failed, and when the test file's process ends for any reason (the
 * runner's time limit included: scripts/test-watchdog.mjs).
 */
export function startChild(command: string, args: readonly string[], options: StartOptions = {}): ChildProcess {
  const { lifetime = 'test', ...spawnOptions } = options;
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...spawnOptions, detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', () => children.delete(child));
  // node:test attaches `after` to the test running now (or the file, outside any test).
  if (lifetime === 'test') after(() => void killGroup(child));
  return child;
}

/** The last part of a child's output, for an error message. */
export function tail(text: string, size = 4000): string {
  return text.length > size ? `…${text.slice(-size)}` : text;
}

/** Resolves when the child exits; on `timeout` its whole group is killed and the promise rejects with its output. */
export function collect(child: ChildProcess, timeout = RUN_TIMEOUT): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`child ${child.spawnargs.join(' ')} timed out after ${timeout} ms (killed)\nstdout: ${tail(stdout)}\nstderr: ${tail(stderr)}`));
    }, timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Starts a command and waits for its end (see `startChild`, `collect`). */
export function runChild(command: string, args: readonly string[], options: StartOptions & { timeout?: number } = {}): Promise<RunResult> {
  const { timeout, ...startOptions } = options;
  return collect(startChild(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...startOptions }), timeout);
}

/**
 * Resolves with the first stdout match of `pattern` (e.g. a server's "listening 1234"). The limit is long: it is
 * there to end a test that would otherwise wait forever, not to judge how fast a loaded machine starts a preload.
 * On timeout the child's group is killed and the error carries its stderr.
 */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeout = READY_TIMEOUT): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let errors = '';
    const started = Date.now();
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onOut);
      child.stderr?.off('data', onErr);
      child.off('close', onClose);
    };
    const timer = setTimeout(() => {
      done();
      killGroup(child);
      reject(new Error(`no line matching ${pattern} in ${timeout} ms (child killed)\nstdout: ${tail(buffer)}\nstderr: ${tail(errors)}`));
    }, timeout);
    const onErr = (chunk: Buffer) => (errors += chunk.toString());
    const onOut = (chunk: Buffer) => {
      buffer += chunk.toString();
      // Tools colour their output when they think a person or CI reads it (picocolors does when `CI` is set).
      const match = stripVTControlCharacters(buffer).match(pattern);
      if (match) {
        done();
        resolve(match);
      }
    };
    const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      reject(
        new Error(
          `exited (${code ?? signal}) after ${Date.now() - started} ms before a line matching ${pattern}\nstdout: ${tail(buffer)}\nstderr: ${tail(errors)}`,
        ),
      );
    };
    child.stderr?.on('data', onErr);
    child.stdout?.on('data', onOut);
    child.on('close', onClose);
  });
}

export { killGroup };
