import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually, REPO_ROOT, TestApp } from '../helpers/app';
import { startChild } from '../helpers/child';

const CLI = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');

/** `probe dashboard --open` with PATH set to `bin` only: a fake xdg-open there, or none. */
describe('probe dashboard --open', { timeout: 120_000 }, () => {
  const started: ChildProcess[] = [];
  after(() => {
    for (const child of started) child.kill('SIGKILL');
  });

  function dashboard(app: TestApp, bin: string, display: string | undefined): { child: ChildProcess; out: () => string } {
    const child = startChild(process.execPath, [CLI, 'dashboard', '--open', '--port', '0'], {
      cwd: app.dir,
      env: app.env({ preload: 'none', env: { PATH: bin, DISPLAY: display, WAYLAND_DISPLAY: undefined } }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    return { child, out: () => out };
  }

  it('opens the default browser (xdg-open) on the URL it prints', async () => {
    const app = new TestApp();
    const opened = path.join(app.dir, 'opened.txt');
    app.write('bin/xdg-open', `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`);
    chmodSync(path.join(app.dir, 'bin', 'xdg-open'), 0o755);
    const { child, out } = dashboard(app, path.join(app.dir, 'bin'), ':0');
    const url = await eventually(() => out().match(/Probe dashboard: (\S+)/)?.[1], 60_000);
    const arg = await eventually(() => existsSync(opened) && readFileSync(opened, 'utf8'), 60_000);
    assert.equal(arg, url);
    assert.doesNotMatch(out(), /no browser/);
    child.kill('SIGTERM');
  });

  for (const [where, bin, display] of [
    ['no opener on PATH', 'no-such-bin', ':0'],
    ['no display (a server, a container)', 'bin', undefined],
  ] as const) {
    it(`prints the URL and says so where there is no browser to open: ${where}`, async () => {
      const app = new TestApp();
      const opened = path.join(app.dir, 'opened.txt');
      app.write('bin/xdg-open', `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`);
      chmodSync(path.join(app.dir, 'bin', 'xdg-open'), 0o755);
      const { child, out } = dashboard(app, path.join(app.dir, bin), display);
      await eventually(() => /no browser to open here/.test(out()), 60_000);
      assert.match(out(), /Probe dashboard: http:\/\/127\.0\.0\.1:\d+\//);
      assert.equal(existsSync(opened), false);
      child.kill('SIGTERM');
    });
  }
});
