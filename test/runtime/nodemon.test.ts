// Issue 26.3: a dev server restarted by nodemon (SIGUSR2), node --watch or tsx watch (SIGTERM), which then start the
// program again, keeps the calls of the run it ended. nodemon 3 and the packed Probe installed as a user has them; nodemon itself is a launcher
// (it made no call and started a child) and stores nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { installRunnerApp, cleanEnv } from '../testrunner/install';
import { TestApp, REPO_ROOT, waitForLine, eventually } from '../helpers/app';
import type { ChildProcess } from 'node:child_process';
import { startChild } from '../helpers/child';
import type { Capture } from '../../src/capture/types';
import { startOkServer } from '../helpers/upstream';

const LIMIT = 240_000; // an install on a cold cache and the preload's start on a loaded machine

/**
 * Saves run 2 of the program until the watcher has ended run 1: a watcher that is still setting up its watch
 * (node --watch learns the files from its child over IPC) misses a change made right after run 1 printed, so
 * the same content is saved again every few seconds until run 1's exit capture is stored (never after: a
 * second save would restart run 2 too). Then waits for run 2.
 */
async function editUntilRestarted(child: ChildProcess, write: () => void, runOneEnded: () => boolean): Promise<void> {
  const restarted = waitForLine(child, /ready 2/, LIMIT);
  let done = false;
  void restarted.then(
    () => (done = true),
    () => (done = true),
  );
  write();
  for (;;) {
    await Promise.race([restarted.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (done || runOneEnded()) break;
    write();
  }
  await restarted;
}

/** Run 1's capture once its exit version is stored: about a second after its call, a `running` version is stored first. */
const endedRun1 = (list: Capture[]) => list.find((c) => c.sections.http?.[0]?.url.endsWith('run=1') && c.status !== 'running');

function captures(dir: string): Capture[] {
  const folder = path.join(dir, '.probe', 'captures');
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => (JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as { capture: Capture }).capture);
}

test('nodemon 3: each restart keeps the calls of the run it ended', { timeout: LIMIT * 2 }, async (t) => {
  const upstream = await startOkServer();
  t.after(() => upstream.close());
  const target = upstream.url;

  const app = await installRunnerApp('nodemon-3', { nodemon: '3.1.9' });
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const server = path.join(app, 'server.cjs');
  const write = (run: number) =>
    fs.writeFileSync(
      server,
      `fetch(process.env.TARGET + '?run=${run}').then((r) => r.text()).then(() => console.log('ready ${run}'));\nsetInterval(() => {}, 1000);\n`,
    );
  write(1);
  const child = startChild(process.execPath, [path.join(app, 'node_modules', 'nodemon', 'bin', 'nodemon.js'), '--watch', 'server.cjs', 'server.cjs'], {
    cwd: app,
    env: { ...cleanEnv(), NODE_OPTIONS: '--require probe/register', TARGET: target },
  });
  await waitForLine(child, /ready 1/, LIMIT);
  await editUntilRestarted(
    child,
    () => write(2),
    () => !!endedRun1(captures(app)),
  ); // nodemon sees the change, sends SIGUSR2 to run 1 and starts run 2
  const first = await eventually(() => endedRun1(captures(app)), LIMIT);
  assert.equal(first.type, 'command');
  assert.equal(first.name, 'server.cjs');
  assert.equal(first.status, String(128 + 12), 'ended by SIGUSR2');
  assert.deepEqual(
    captures(app).map((c) => c.name),
    ['server.cjs'],
    'nodemon itself (a launcher) stores nothing; run 2 is still running',
  );
});

test('node --watch: a restart keeps the calls of the run it ended', { timeout: LIMIT * 2 }, async (t) => {
  const upstream = await startOkServer();
  t.after(() => upstream.close());
  const target = upstream.url;
  const app = new TestApp();
  const write = (run: number) =>
    app.write(
      'server.js',
      `fetch(process.env.TARGET + '?run=${run}').then((r) => r.text()).then(() => console.log('ready ${run}'));\nsetInterval(() => {}, 1000);\n`,
    );
  write(1);
  const child = startChild(process.execPath, ['--watch', 'server.js'], { cwd: app.dir, env: app.env({ env: { TARGET: target } }) });
  await waitForLine(child, /ready 1/, LIMIT);
  await editUntilRestarted(
    child,
    () => write(2),
    () => !!endedRun1(app.captures()),
  );
  const first = await eventually(() => endedRun1(app.captures()), LIMIT);
  assert.equal(first.name, 'server.js');
  assert.equal(first.status, String(128 + 15), 'node --watch ends the run with SIGTERM');
});

// tsx watch (4.x) restarts its child with SIGTERM (its killProcess, SIGKILL only after 5 s). Its preflight adds a
// SIGTERM listener it hides from process.listenerCount, so Probe still sees itself as the only listener.
test('tsx watch: a restart keeps the calls of the run it ended', { timeout: LIMIT * 2 }, async (t) => {
  const upstream = await startOkServer();
  t.after(() => upstream.close());
  const target = upstream.url;
  const app = new TestApp();
  const write = (run: number) =>
    app.write(
      'server.ts',
      `const run: number = ${run};\nfetch(process.env.TARGET + '?run=' + run).then((r) => r.text()).then(() => console.log('ready ' + run));\nsetInterval(() => {}, 1000);\n`,
    );
  write(1);
  const tsx = path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = startChild(process.execPath, [tsx, 'watch', 'server.ts'], { cwd: app.dir, env: app.env({ env: { TARGET: target } }) });
  await waitForLine(child, /ready 1/, LIMIT);
  await editUntilRestarted(
    child,
    () => write(2),
    () => !!endedRun1(app.captures()),
  );
  const first = await eventually(() => endedRun1(app.captures()), LIMIT);
  assert.equal(first.name, 'server.ts');
  assert.equal(first.status, String(128 + 15), 'tsx watch ends the run with SIGTERM');
  assert.deepEqual(
    app.captures().map((c) => c.name),
    ['server.ts'],
    'tsx itself (a launcher) stores nothing; run 2 is still running',
  );
});
