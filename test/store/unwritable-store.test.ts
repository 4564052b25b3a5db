// A user who cannot write where the app runs (another user's checkout, a read-only `.probe`): the app runs as it
// would without Probe, Probe says in one line which folder and how to fix it, then once, at exit, how many captures
// were lost, counted once each however many versions of a long unit failed. `probe list` there says why the store
// stays empty and fails. The app runs as the unprivileged `nobody` through runuser (the suite runs as root).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { collect, startChild } from '../helpers/child';

// Three requests to itself, and calls of the process's own command capture spread over two seconds so that
// running versions of it are written (and fail) before its last one.
const APP = `const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  for (let i = 0; i < 3; i++) {
    console.log((await fetch('http://127.0.0.1:' + port + '/n/' + i)).status);
    await new Promise((resolve) => setTimeout(resolve, 800));
  }
  server.close();
  console.log('done');
});`;

function nobodyUid(): number | null {
  try {
    if (process.getuid?.() !== 0) return null;
    return Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
}

const uid = nobodyUid();
const skip = uid === null ? 'needs root and a nobody user (runuser)' : false;

function asNobody(app: TestApp, args: string[], preload: boolean) {
  const env = app.env({ preload: preload ? 'require' : 'none' });
  const child = startChild('runuser', ['-u', 'nobody', '--', process.execPath, ...args], { cwd: app.dir, env });
  return collect(child);
}

/** An app folder nobody can read but not write (0555), or with a `.probe` of nobody's whose captures folder is read-only. */
function appFolder(kind: 'folder' | 'captures'): TestApp {
  const app = new TestApp({ 'app.js': APP });
  if (kind === 'captures') {
    const captures = path.join(app.dir, '.probe', 'captures');
    mkdirSync(captures, { recursive: true });
    chownSync(path.join(app.dir, '.probe'), uid!, -1);
    chownSync(captures, uid!, -1);
    chmodSync(path.join(app.dir, '.probe'), 0o700);
    chmodSync(captures, 0o500);
  }
  chmodSync(app.dir, 0o555);
  return app;
}

describe('a store the user cannot write', { skip }, () => {
  for (const kind of ['folder', 'captures'] as const) {
    it(`${kind === 'folder' ? 'an app folder of 0555' : 'a read-only .probe/captures'}: the app as without Probe, one line naming the folder and the fix, the exact loss once`, async () => {
      const app = appFolder(kind);
      const plain = await asNobody(app, ['app.js'], false);
      assert.equal(plain.code, 0, plain.stderr);
      const probed = await asNobody(app, ['app.js'], true);
      assert.equal(probed.code, plain.code);
      assert.equal(probed.stdout, plain.stdout);
      const lines = probed.stderr.split('\n').filter(Boolean);
      const captures = path.join(app.dir, '.probe', 'captures');
      assert.equal(lines.length, 2, probed.stderr);
      assert.equal(
        lines[0],
        `[probe] cannot write captures in ${captures} (EACCES: permission denied for user nobody); calls are not recorded. Make that folder writable, or set PROBE_ROOT to a folder you can write.`,
      );
      // Three request captures and the process's command capture: four, whatever versions of the last were tried.
      assert.equal(lines[1], '[probe] 4 capture(s) were lost: the file store took none');

      const list = await asNobody(app, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'list'], false);
      assert.equal(list.code, 1, list.stdout + list.stderr);
      const blocked = kind === 'folder' ? app.dir : captures;
      assert.match(
        list.stdout,
        new RegExp(`The store holds no captures: ${blocked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not writable for user nobody \\(EACCES\\)`),
      );
      assert.match(list.stdout, /set PROBE_ROOT to a folder you can write/);
    });
  }

  it('a captures folder the user cannot read: probe list says so in one line and fails', async () => {
    const app = appFolder('captures');
    chmodSync(path.join(app.dir, '.probe', 'captures'), 0o000);
    const list = await asNobody(app, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'list'], false);
    assert.equal(list.code, 1);
    assert.equal(list.stdout, '');
    assert.match(list.stderr.trim(), /^probe list: cannot read the store: cannot list .*\.probe\/captures: EACCES/);
    assert.equal(list.stderr.trim().split('\n').length, 1);
  });
});
