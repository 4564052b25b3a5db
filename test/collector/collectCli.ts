import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, type TestApp } from '../helpers/app';
import { collect, startChild, waitForLine, type RunResult, type StartOptions } from '../helpers/child';

export interface RunningCollector {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then the exit result (the collector writes what it holds before exiting). */
  stop(): Promise<RunResult>;
}

/** Starts the built `probe collect --port 0` in the app folder, as a user would run it next to the app. */
export async function startCollector(app: TestApp, args: string[] = [], options: Pick<StartOptions, 'lifetime'> = {}): Promise<RunningCollector> {
  const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'collect', '--port', '0', ...args], {
    cwd: app.dir,
    env: app.env({ preload: 'none' }),
    ...options,
  });
  const done = collect(child, 600_000);
  const [, url] = await waitForLine(child, /(http:\/\/\S+)\n/);
  return {
    url: url!,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return done;
    },
  };
}
