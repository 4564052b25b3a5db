import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Capture, HttpRow } from '../../src/capture/types';
import { REPO_ROOT } from '../helpers/app';
import { cleanEnv } from '../helpers/pinned';

/** This checkout's preload (PROBE_FRAMES_DIST: another build's dist/, to see a test fail without a fix). */
export const REGISTER = path.join(path.resolve(process.env.PROBE_FRAMES_DIST ?? path.join(REPO_ROOT, 'dist')), 'register.js');

/** The environment of an app run: the runner's own Probe and agent settings left out, the preload given. */
export function appEnv(preload: string | null, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...cleanEnv(), ...(preload ? { NODE_OPTIONS: preload } : {}), ...extra };
}

/** Every outgoing call the app's captures hold. */
export function httpRows(app: string): HttpRow[] {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { capture: Capture }).capture.sections.http ?? []);
}

/**
 * The oracle: `ORACLE <name> <stack line>` printed by the app, the stack line of an Error made on the call's own
 * line as the setup's own stack mapping prints it (`--enable-source-maps` for built code). Returns file
 * (relative to the app) and line.
 */
export function oracles(output: string, app: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of output.matchAll(/^ORACLE (\S+) .*?\(?((?:file:\/\/)?\/[^\s()]+):(\d+):\d+\)?$/gm)) {
    const file = match[2]!.startsWith('file://') ? fileURLToPath(match[2]!) : match[2]!;
    found.set(match[1]!, `${path.relative(fs.realpathSync(app), fs.realpathSync(file))}:${match[3]}`);
  }
  return found;
}

/** The origin of the rows whose URL path is `pathname`, as `file:line` (or `null`). */
export function originsOf(rows: HttpRow[], pathname: string): string[] {
  return rows.filter((row) => new URL(row.url).pathname === pathname).map((row) => (row.origin ? `${row.origin.file}:${row.origin.line}` : 'null'));
}

/** Each named call was made and every one of its rows has the oracle's line. */
export function assertOrigins(rows: HttpRow[], expected: Map<string, string>, calls: Record<string, string>): void {
  const problems: string[] = [];
  for (const [name, pathname] of Object.entries(calls)) {
    const oracle = expected.get(name);
    if (!oracle) {
      problems.push(`${name}: no oracle printed`);
      continue;
    }
    const seen = originsOf(rows, pathname);
    if (seen.length === 0) problems.push(`${name}: no call to ${pathname}`);
    for (const origin of seen) if (origin !== oracle) problems.push(`${name} (${pathname}): origin ${origin}, the oracle says ${oracle}`);
  }
  assert.deepEqual(problems, []);
}
