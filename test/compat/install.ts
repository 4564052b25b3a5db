import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChild } from '../helpers/child';
import { cleanEnv, installPinned, packProbe, pinsKey } from '../helpers/pinned';
import { ORIGIN_OFF, type Cell, type Run } from './cells';

const HERE = __dirname;

export { cleanEnv, packProbe };
/** Installs are kept outside the repository, shared by runs and Node versions (the apps are plain JS). */
export const CACHE = process.env.PROBE_COMPAT_CACHE ?? path.join(os.homedir(), '.cache', 'probe-compat');

/**
 * The cell's app folder in the cache: its pinned dependencies plus the packed Probe, installed as a user
 * would (`npm install` of the tarball beside the app's own versions, so Probe's copies nest where they differ).
 * The third-party packages stay installed between runs; only Probe is replaced.
 */
export function installCell(cell: Cell): Promise<string> {
  return installApp(cell.name, cell.dependencies, (app) => copyHarness(cell, app));
}

/** The harness and the cell's setup files, copied into an app folder (they resolve that app's packages). */
export function copyHarness(cell: Cell, app: string): void {
  for (const file of ['runner.mjs', 'compare.mjs', 'app.cjs', 'app.mjs', 'probe.config.cjs', 'probe.origin-off.cjs', 'loopback.crt', 'loopback.key'])
    fs.copyFileSync(path.join(HERE, 'harness', file), path.join(app, file));
  fs.copyFileSync(path.join(HERE, 'setups', cell.cjs), path.join(app, 'tracing.cjs'));
  if (cell.mjs) fs.copyFileSync(path.join(HERE, 'setups', cell.mjs), path.join(app, 'tracing.mjs'));
  for (const file of cell.files ?? []) fs.copyFileSync(path.join(HERE, 'setups', file), path.join(app, file));
}

/**
 * An app folder in the cache (`<name>-<hash of its pins>`) with its pinned dependencies (and `overrides`, to
 * pin a transitive one) plus the packed Probe. `copy` puts the app's own files in first.
 */
export function installApp(
  name: string,
  dependencies: Record<string, string>,
  copy: (app: string) => void,
  overrides?: Record<string, string>,
): Promise<string> {
  return installPinned({
    dir: path.join(CACHE, `${name}-${pinsKey(overrides ? { dependencies, overrides } : dependencies)}`),
    package: { name: `compat-${name}`, dependencies, overrides },
    probe: true,
    prepare: copy,
  });
}

export interface Outcome {
  ok: boolean;
  output: string;
}

/**
 * One compare.mjs run: the app alone, then with Probe in the given order, checked against `expect`. A baseline
 * that exported no span at all did not do its work (the zero-code SDK's exporter, timer-driven, was seen to
 * export nothing at exit on a loaded machine, without Probe): the comparison is run again, at most twice, and
 * each retry is said in the output. A failure with Probe is never retried.
 */
export async function compare(app: string, run: Run, expect: string[]): Promise<Outcome> {
  const notes: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await compareOnce(app, run, expect);
    if (outcome.ok || attempt === 3 || !baselineExportedNothing(outcome.output)) {
      return { ok: outcome.ok, output: [...notes, outcome.output].join('\n') };
    }
    notes.push(`(attempt ${attempt}: the baseline without Probe exported no span; compared again)`);
  }
}

function baselineExportedNothing(output: string): boolean {
  const start = output.indexOf('=== baseline');
  const end = output.indexOf('=== with Probe', start);
  return start >= 0 && end > start && /spans exported \(0\)/.test(output.slice(start, end));
}

async function compareOnce(app: string, run: Run, expect: string[]): Promise<Outcome> {
  const args = ['compare.mjs', '--app', '.', '--mode', run.mode, '--order', run.order, '--expect', expect.join(',')];
  if (run.server) args.push('--server', run.server);
  if (run.esm) args.push('--esm');
  args.push(...(run.args ?? []));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-compat-'));
  try {
    const result = await runChild(process.execPath, args, { cwd: app, env: { ...cleanEnv(), FIELD_WORK: work }, timeout: 180_000 });
    return { ok: result.code === 0, output: `${result.stdout}${result.stderr}` };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export function describeRun(run: Run): string {
  return `${run.esm ? 'ESM' : 'CJS'} ${run.mode}${run.server ? ` (${run.server})` : ''}, Probe ${run.order}${run.args?.includes('--setup') ? ', zero-code' : ''}${run.args?.includes(ORIGIN_OFF) ? ', origins off' : ''}`;
}
