import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../io';
import type { RunningDashboard } from '../../dashboard/startDashboard';
import { closeContext, openContext, type CliContext } from '../context';
import { findAppRoot } from '../../config/appRoot';
import { openBrowser } from '../openBrowser';
import { portOption, serveDashboard } from '../serveDashboard';
import { RUN_ENV } from '../../runtime/testRun';
import { newCaptureId } from '../../capture/ids';

/** The preload of this very install (dist/register.js), so the command records with the Probe that runs it. */
const REGISTER = path.resolve(__dirname, '..', '..', 'register.js');
/** Signals a terminal or a process manager sends to stop a program; each is passed on to the command. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `probe run [options] -- <command> [args]`: runs the command with Probe preloaded in it and in every Node
 * process it starts (NODE_OPTIONS is inherited: `npm run dev`, `npx`, tsx's watcher, a test runner's workers),
 * serves the dashboard while it runs, and ends as the command ends (its exit code, or its signal).
 */
export const run: CliCommand = async (argv, io) => {
  const split = argv.indexOf('--');
  const { values } = parseArgs({
    args: split === -1 ? [] : argv.slice(0, split),
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string' },
      open: { type: 'boolean', default: false },
      'no-dashboard': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const command = split === -1 ? argv : argv.slice(split + 1);
  if (command.length === 0) {
    io.err('probe run: no command given: probe run -- node server.js');
    return 2;
  }
  const port = portOption(values.port);
  if (Number.isNaN(port)) {
    io.err(`probe run: --port must be a number from 0 to 65535, got ${JSON.stringify(values.port)}`);
    return 2;
  }

  // A bad config is said by the app's preload too (the app then runs unrecorded); no dashboard then.
  const context = values['no-dashboard'] ? null : openContext(io);
  const dashboard = context ? await serveDashboard(context, io, 'run', { host: values.host, port }) : null;
  if (dashboard) {
    // On stderr: the command's stdout stays its own (`probe run -- node report.js > out.json`).
    io.err(`Probe dashboard: ${dashboard.url} (while the command runs)`);
    if (values.open && !(await openBrowser(dashboard.url))) io.err('  no browser to open here: open the URL above');
  }

  const [file, ...args] = command as [string, ...string[]];
  // Everything the command starts stores where this dashboard reads, whichever folder a process runs in
  // (`npm run dev -w packages/api`, `npm --prefix`, a script that changes directory).
  const root = context?.config.root ?? findAppRoot(io.cwd, io.env).root;
  const child = spawn(file, args, { cwd: io.cwd, env: { ...withPreload(io.env), PROBE_ROOT: root, [RUN_ENV]: newCaptureId() }, stdio: 'inherit' });
  const forward = new Map<NodeJS.Signals, () => void>();
  for (const signal of FORWARDED) {
    // A terminal's Ctrl+C reaches the command too (same process group); passing it on as well is what
    // foreground-child (npm's, tap's) does: a process manager's SIGTERM reaches only this process.
    const handler = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    forward.set(signal, handler);
    process.on(signal, handler);
  }
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  await stop(dashboard, context);
  for (const [signal, handler] of forward) process.off(signal, handler);

  if (ended.error) {
    const missing = (ended.error as NodeJS.ErrnoException).code === 'ENOENT';
    io.err(missing ? `probe run: command not found: ${file}` : `probe run: could not start ${file}: ${ended.error.message}`);
    return missing ? 127 : 126;
  }
  if (ended.signal) {
    // Ended by a signal: this process ends by the same one, so its parent (a shell, npm, CI) sees what it would
    // have seen without Probe. 128+n where the signal does not end it (Windows).
    process.kill(process.pid, ended.signal);
    return 128 + (constants.signals[ended.signal] ?? 0);
  }
  return ended.code ?? 1;
};

async function stop(dashboard: RunningDashboard | null, context: CliContext | null): Promise<void> {
  try {
    await dashboard?.close();
    if (context) await closeContext(context);
  } catch {
    // the command's result is what this process reports
  }
}

/**
 * The environment with `--require <this Probe's register.js>` added to NODE_OPTIONS (kept as given otherwise).
 * `--require` serves both module systems: the preload is CommonJS and hooks an ESM app's imports itself.
 * NODE_OPTIONS takes a quoted value with backslash escapes, so a path with spaces survives.
 */
export function withPreload(env: CliIo['env']): NodeJS.ProcessEnv {
  const current = env.NODE_OPTIONS ?? '';
  if (current.includes(REGISTER) || /(^|\s)(--require|-r|--import)[= ]"?probe\/register\b/.test(current)) return { ...env };
  const quoted = `"${REGISTER.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return { ...env, NODE_OPTIONS: `${current}${current ? ' ' : ''}--require ${quoted}` };
}
