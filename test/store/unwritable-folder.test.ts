import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, chmodSync, constants, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChild, type RunResult } from '../helpers/child';
import { REPO_ROOT } from '../helpers/app';
import { otherUserSkip } from '../helpers/otherUser';

/**
 * A user who may not write the app's folder (a container running as a non-root user over files root owns). Root
 * writes anywhere whatever the modes, so the app and the CLI run as `nobody`, as that user would.
 */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const skip = otherUserSkip();

const scratch = mkdtempSync(path.join(os.tmpdir(), 'probe-unwritable-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

/** This Node, where `nobody` can run it: a copy when it lies in a folder that user cannot enter (root's home). */
const node = (() => {
  if (!asRoot) return process.execPath;
  const copy = path.join(scratch, 'node');
  copyFileSync(process.execPath, copy);
  chmodSync(copy, 0o755);
  return copy;
})();

/**
 * The app: a server and three calls to it, then a pause past the command capture's checkpoint (a running version
 * is stored while it waits) and one more call, so the process's capture has two versions. Exit code 3 and stdout
 * are the app's own, to compare with a run without Probe.
 */
const APP = `
const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok ' + req.url)).listen(0, '127.0.0.1', async () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  for (const p of ['/a', '/b', '/c']) console.log(await (await fetch(base + p)).text());
  await new Promise((resolve) => setTimeout(resolve, 1500));
  console.log(await (await fetch(base + '/d')).text());
  server.close();
  process.exitCode = 3;
});
`;

let apps = 0;
/** An app folder as `mode`, with `probe` folders made by root as given (mode per relative path). */
function appFolder(mode: number, folders: Record<string, number> = {}): string {
  const dir = path.join(scratch, `app-${++apps}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  writeFileSync(path.join(dir, 'app.js'), APP);
  for (const [folder, folderMode] of Object.entries(folders)) {
    mkdirSync(path.join(dir, folder), { recursive: true });
    chmodSync(path.join(dir, folder), folderMode);
  }
  chmodSync(dir, mode);
  return dir;
}

function asNobody(dir: string, args: string[], preload: boolean): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, NODE_OPTIONS: preload ? `--require ${path.join(REPO_ROOT, 'dist', 'register.js')}` : '' };
  return runChild(node, args, { cwd: dir, env, uid: NOBODY, gid: NOBODY });
}

const probeLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('[probe]'));

/** The captures the app stores where it may write (distinct ids: a running version and the last share one). */
async function capturesStoredWhenWritable(): Promise<number> {
  const dir = appFolder(0o777);
  const run = await asNobody(dir, ['app.js'], true);
  assert.equal(probeLines(run.stderr).length, 0, run.stderr);
  const ids = new Set(readdirSync(path.join(dir, '.probe', 'captures')).map((name) => /-([^-.][^.]*)\.json$/.exec(name)?.[1] ?? name));
  return ids.size;
}

test('an unwritable store: the app runs as without Probe, and one line names the folder and the fix, then the exact loss', { skip }, async () => {
  const stored = await capturesStoredWhenWritable();
  assert.ok(stored >= 5, `the app stores its 4 requests and its command capture, got ${stored}`);
  const baseline = await asNobody(appFolder(0o555), ['app.js'], false);
  assert.equal(baseline.code, 3, baseline.stderr);

  const cases: Array<{ name: string; dir: string; refused: string }> = [];
  const app = appFolder(0o555);
  cases.push({ name: 'an app folder this user may not write', dir: app, refused: app });
  const probeReadOnly = appFolder(0o755, { '.probe': 0o555 });
  cases.push({ name: 'a read-only .probe', dir: probeReadOnly, refused: path.join(probeReadOnly, '.probe') });
  const capturesReadOnly = appFolder(0o755, { '.probe': 0o755, '.probe/captures': 0o555 });
  cases.push({ name: 'a read-only capture folder', dir: capturesReadOnly, refused: path.join(capturesReadOnly, '.probe', 'captures') });
  const probeClosed = appFolder(0o755, { '.probe': 0o700 });
  cases.push({ name: 'a .probe this user cannot enter', dir: probeClosed, refused: path.join(probeClosed, '.probe') });

  for (const { name, dir, refused } of cases) {
    const run = await asNobody(dir, ['app.js'], true);
    assert.equal(run.code, baseline.code, `${name}: ${run.stderr}`);
    assert.equal(run.stdout, baseline.stdout, name);
    assert.equal(run.stderr.replace(/^\[probe\].*\n/gm, ''), baseline.stderr, name);
    const lines = probeLines(run.stderr);
    assert.equal(lines.length, 2, `${name}:\n${run.stderr}`);
    const folder = path.join(dir, '.probe', 'captures');
    assert.equal(
      lines[0],
      `[probe] cannot write captures to ${folder}: ${refused} is not writable by this user (EACCES: permission denied); ` +
        'make it writable for this user, or set PROBE_ROOT=<a writable folder>',
      name,
    );
    assert.doesNotMatch(run.stderr, /\.tmp/, name);
    // Captures, not writes: the process's running version and its last version are one capture.
    assert.equal(lines[1], `[probe] ${stored} capture(s) were lost while the capture folder could not be written (${stored} since start)`, name);
  }
});

test('PROBE_ROOT, the fix the line names, stores the same app where the user may write', { skip }, async () => {
  const dir = appFolder(0o555);
  const writable = path.join(scratch, 'writable-root');
  mkdirSync(writable);
  chmodSync(writable, 0o777);
  const env = `PROBE_ROOT=${writable}`;
  const run = await runChild(node, ['app.js'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PROBE_ROOT: writable, NODE_OPTIONS: `--require ${path.join(REPO_ROOT, 'dist', 'register.js')}` },
    uid: NOBODY,
    gid: NOBODY,
  });
  assert.equal(run.code, 3, run.stderr);
  assert.equal(probeLines(run.stderr).length, 0, `${env}: ${run.stderr}`);
  const list = await runChild(node, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'list'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PROBE_ROOT: writable },
    uid: NOBODY,
    gid: NOBODY,
  });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /command\s+exit 3/);
});

test('probe list, rows, show, tail, diff and dashboard on a store this user cannot read: one line, which folder, what to do, exit 1', { skip }, async () => {
  const dir = appFolder(0o755, { '.probe': 0o700, '.probe/captures': 0o700 });
  const folder = path.join(dir, '.probe', 'captures');
  const cli = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');
  const commands = [
    ['list'],
    ['rows'],
    ['show', '0mx06f8aaG0qYBGIo'],
    ['tail'],
    ['diff', '0mx06f8aaG0qYBGIo', '0mx06f89kGZ2wYqFK'],
    ['dashboard', '--port', '0'],
  ];
  for (const args of commands) {
    const result = await asNobody(dir, [cli, ...args], false);
    assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
    assert.equal(result.stdout, '', args.join(' '));
    assert.equal(
      result.stderr,
      `probe ${args[0]}: cannot read captures in ${folder}: ${path.join(dir, '.probe')} is not readable by this user (EACCES: permission denied); ` +
        'run probe as the user the app runs as, or make the folder readable for this user\n',
      args.join(' '),
    );
  }
});

test('a store that does not exist yet where the user may not create it: probe list says why it stays empty and fails, creating nothing', { skip }, async () => {
  const dir = appFolder(0o555);
  const result = await asNobody(dir, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'list'], false);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /The store holds no captures: .* is not writable for user nobody \(EACCES\).*set PROBE_ROOT/);
  assert.throws(() => accessSync(path.join(dir, '.probe'), constants.F_OK));
});

test('a store that does not exist yet where the user may create it: "no captures yet", exit 0', { skip }, async () => {
  const dir = appFolder(0o777);
  const result = await asNobody(dir, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'list'], false);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /holds no captures yet/);
});
