import { mkdtempSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { readableCapture } from '../../src/capture/readableCapture';
// @ts-expect-error plain .mjs helper shared with scripts/
import { prepareTestModules } from '../../scripts/test-modules.mjs';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** How Probe is loaded: `require` (default), `import`, or `none` (a baseline run without Probe). */
  preload?: 'require' | 'import' | 'none';
  env?: Record<string, string | undefined>;
  args?: string[];
  /** Kill the process after this many ms (default 30 s). */
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

  /** Starts `node <script> ...args` in the app folder. */
  spawn(script: string, options: RunOptions = {}): ChildProcess {
    return spawn(process.execPath, [script, ...(options.args ?? [])], { cwd: this.dir, env: this.env(options), stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /** Runs a script to completion. */
  run(script: string, options: RunOptions = {}): Promise<RunResult> {
    const child = this.spawn(script, options);
    return collect(child, options.timeout ?? 30_000);
  }

  /** Runs the `probe` CLI in the app folder with the same environment an app gets. */
  cli(args: string[], options: RunOptions = {}): Promise<RunResult> {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), ...args], {
      cwd: this.dir,
      env: this.env({ ...options, preload: 'none' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return collect(child, options.timeout ?? 30_000);
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

export function collect(child: ChildProcess, timeout: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child timed out after ${timeout} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Resolves with the first stdout line matching `pattern` (e.g. a server's "listening 1234"). */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeout = 15_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in ${timeout} ms\nstdout: ${buffer}\nstderr: ${errors}`)), timeout);
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = buffer.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before a line matching ${pattern}\nstdout: ${buffer}\nstderr: ${errors}`));
    });
  });
}

/** Polls until `check` returns a value (not undefined/false), for captures written after a response. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeout = 10_000): Promise<T> {
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
