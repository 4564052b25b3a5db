import { mkdtempSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { collect, startChild, type RunResult } from './child';
import { readableCapture } from '../../src/capture/readableCapture';
// @ts-expect-error plain .mjs helper shared with scripts/
import { prepareTestModules } from '../../scripts/test-modules.mjs';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface RunOptions {
  /** How Probe is loaded: `require` (default), `import`, or `none` (a baseline run without Probe). */
  preload?: 'require' | 'import' | 'none';
  env?: Record<string, string | undefined>;
  args?: string[];
  /** Kill the process after this many ms (default RUN_TIMEOUT: 3 minutes, a limit against hangs, not a speed check). */
  timeout?: number;
}

/**
 * A throwaway app folder (own package.json, node_modules linking this repo's packages and `probe`) where
 * tests write an app and a config, run it as a real child process under the preload, and read the store.
 */
export class TestApp {
  readonly dir: string;

  constructor(files: Record<string, string> = {}, name = 'test-app') {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'probe-app-'));
    const modules = prepareTestModules(REPO_ROOT) as string;
    symlinkSync(modules, path.join(this.dir, 'node_modules'));
    this.write('package.json', JSON.stringify({ name, version: '1.0.0', private: true }));
    for (const [file, text] of Object.entries(files)) this.write(file, text);
  }

  write(file: string, text: string): void {
    const full = path.join(this.dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }

  env(options: RunOptions = {}): NodeJS.ProcessEnv {
    const preload = options.preload ?? 'require';
    const nodeOptions = preload === 'none' ? '' : preload === 'import' ? '--import probe/register' : '--require probe/register';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_OPTIONS: nodeOptions,
      PROBE_ROOT: undefined,
      PROBE_CONFIG: undefined,
      PROBE_STORAGE: undefined,
      PROBE_ENABLED: undefined,
    };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    return env;
  }

  /** Starts `node <script> ...args` in the app folder (killed when the test ends: see helpers/child.ts). */
  spawn(script: string, options: RunOptions = {}): ChildProcess {
    return startChild(process.execPath, [script, ...(options.args ?? [])], { cwd: this.dir, env: this.env(options) });
  }

  /** Runs a script to completion. */
  run(script: string, options: RunOptions = {}): Promise<RunResult> {
    return collect(this.spawn(script, options), options.timeout);
  }

  /** Runs the `probe` CLI in the app folder with the same environment an app gets. */
  cli(args: string[], options: RunOptions = {}): Promise<RunResult> {
    const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), ...args], {
      cwd: this.dir,
      env: this.env({ ...options, preload: 'none' }),
    });
    return collect(child, options.timeout);
  }

  /** Every capture in the default file store as readers get it (store.find()), oldest first (ids sort by creation time). */
  captures(folder = '.probe/captures'): Capture[] {
    const dir = path.join(this.dir, folder);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((name) => /^\d{17}-[0-9A-Za-z_-]+\.json$/.test(name))
      .map((name) => readableCapture((JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { capture: Capture }).capture))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** What a child app printed last, as one line of JSON (apps that report what they saw print it at the end). */
export function lastJsonLine<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

/**
 * Polls until `check` returns a value (not undefined/false), for captures written after a response. The limit only
 * ends a wait that would never succeed: a loaded machine can take many seconds to write a capture.
 */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeout = 60_000): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw last instanceof Error ? last : new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a child process is still running (neither exited nor ended by a signal). */
export function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * Polls until `check` returns a value, for as long as `possible()` holds (the process that would bring it still
 * runs): the wait ends when success has become impossible, not at a time guessed for a loaded machine. `bound`
 * (8 minutes, under the runner's limit per test) only keeps a test that would never succeed from hanging. Rejects
 * with what stopped it.
 */
export async function whilePossible<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  possible: () => boolean,
  what: string,
  bound = 480_000,
): Promise<T> {
  const deadline = Date.now() + bound;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    // Checked once more after the end: what the process did before it ended is in.
    if (!possible()) {
      const last = await check();
      if (last !== undefined && last !== false) return last as T;
      throw new Error(`${what}: no longer possible (the process that would bring it has ended)`);
    }
    if (Date.now() > deadline) throw new Error(`${what}: not there after ${bound} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { collect, waitForLine, type RunResult } from './child';
