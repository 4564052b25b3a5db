import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { Capture, HttpRow } from '../../src/capture/types';
import { REPO_ROOT, eventually } from '../helpers/app';
import { killGroup, runChild, startChild, waitForLine } from '../helpers/child';
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

/** The column Node printed with each oracle position (for the maps of a build). */
const oracleColumns = new Map<string, number>();

/**
 * The oracle: `ORACLE <name> <stack line>` printed by the app, the stack line of an Error made on the call's own
 * line as the setup's own stack mapping prints it (`--enable-source-maps` for built code). Returns file
 * (relative to the app) and line.
 */
export function oracles(output: string, app: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of stripVTControlCharacters(output).matchAll(/^(?:[^\n]*?[ \t\]])?ORACLE (\S+) .*?\(?((?:file:\/\/)?\/[^\s()]+):(\d+):(\d+)\)?$/gm)) {
    const file = match[2]!.startsWith('file://') ? fileURLToPath(match[2]!) : match[2]!;
    const at = `${path.relative(fs.realpathSync(app), fs.realpathSync(file))}:${match[3]}`;
    found.set(match[1]!, at);
    oracleColumns.set(at, Number(match[4]));
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

/**
 * A built file's position carried through the build's own maps, each file's `sourceMappingURL` read with Node's
 * SourceMap, to the first file without one: the oracle for a build whose maps chain (Node's `--enable-source-maps`
 * follows one link, and prints the intermediate file).
 */
export function throughBuildMaps(app: string, at: string): string {
  const match = /^(.*):(\d+)$/.exec(at)!;
  let file = path.resolve(app, match[1]!);
  let line = Number(match[2]);
  let column = oracleColumns.get(at) ?? 0;
  for (let link = 0; link < 8; link++) {
    const text = fs.readFileSync(file, 'utf8');
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
    if (!url || url.startsWith('data:')) break;
    const mapFile = path.resolve(path.dirname(file), url);
    const map = new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    const entry = map.findEntry(line - 1, Math.max(0, column - 1)) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    if (typeof entry.originalSource !== 'string' || typeof entry.originalLine !== 'number') break;
    file = path.resolve(path.dirname(mapFile), entry.originalSource.replace(/^file:\/\//, ''));
    line = entry.originalLine + 1;
    column = (entry.originalColumn ?? 0) + 1;
  }
  return `${path.relative(fs.realpathSync(app), file)}:${line}`;
}

/** A hash of a fixture's files: a build is redone only when they change. */
export function fixtureHash(name: string): string {
  const root = path.join(__dirname, 'apps', name);
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(path.relative(root, full)).update('\0').update(fs.readFileSync(full));
    }
  };
  walk(root);
  return hash.digest('hex').slice(0, 16);
}

/** Runs a build command in the app once per fixture version (a marker file in the output remembers it). */
export async function buildOnce(app: string, fixture: string, marker: string, command: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const key = fixtureHash(fixture);
  const file = path.join(app, marker);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === key) return;
  const result = await runChild(command[0]!, command.slice(1), { cwd: app, env, timeout: 600_000, lifetime: 'file' });
  assert.equal(result.code, 0, `${command.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, key);
}

/**
 * Starts a built server under the preload and `--enable-source-maps` (which prints the oracle's position), asks
 * `paths`, and returns its output so far and the calls recorded once every upstream path in `expect` has a row.
 */
export async function serveAndAsk(
  app: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  paths: string[],
  expect: string[],
): Promise<{ output: string; rows: HttpRow[] }> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const child = startChild(process.execPath, args, { cwd: app, env });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const match = await waitForLine(child, ready);
    let base = match[1]!.replace('0.0.0.0', '127.0.0.1').replace('localhost', '127.0.0.1');
    // A server that prints the port it was given (0), not the one it got: the one its process listens on.
    if (new URL(base).port === '0') base = `http://127.0.0.1:${await eventually(() => listeningPort(child.pid!))}`;
    for (const ask of paths) {
      const res = await fetch(new URL(ask, base));
      await res.text();
      assert.ok(res.status < 500, `${ask}: ${res.status}\n${output}`);
    }
    const rows = await eventually(() => {
      const found = httpRows(app);
      return expect.every((p) => found.some((row) => new URL(row.url).pathname === p)) && found;
    });
    return { output, rows };
  } finally {
    killGroup(child);
  }
}

/** The TCP port a process listens on (Linux: its socket inodes in /proc/<pid>/fd, found in /proc/net/tcp*). */
function listeningPort(pid: number): number | undefined {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9]!)) return parseInt(cols[1]!.split(':').pop()!, 16);
    }
  }
  return undefined;
}

/** The path a dev server is asked until its app answers; tests leave its capture out of what they count. */
export const WARM_PATH = '/__test_warm';

/**
 * Asks `base` WARM_PATH until the answer is not a 503. `nuxi dev` prints that its Nitro server is built before
 * its front process can reach the worker, and answers 503 ("Dev server is unavailable") meanwhile; on a loaded
 * machine the first paths a test asked got that answer. Bounded, never a guess at a time to wait.
 */
export async function untilServing(base: string, timeout = 120_000): Promise<void> {
  const end = Date.now() + timeout;
  for (;;) {
    const response = await fetch(new URL(WARM_PATH, base)).catch(() => null);
    await response?.arrayBuffer().catch(() => undefined);
    if (response && response.status !== 503) return;
    if (Date.now() > end) throw new Error(`${base} still answered 503 after ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
