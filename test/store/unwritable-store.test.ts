// A user who cannot write where the app runs (another user's checkout, a read-only `.probe`): after the app ran
// (as it would without Probe), `probe list` there says why the store stays empty, names the fix, and fails. What the
// app's stderr says is unwritable-folder.test.ts's. The app runs as the unprivileged `nobody` through runuser.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { otherUserSkip } from '../helpers/otherUser';
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
const skip = uid === null ? 'needs root and a nobody user (runuser)' : otherUserSkip();

/** This Node where `nobody` can run it (the CI's other Node lines lie in root's home): a copy in a folder of its own. */
let nodeCopy: string | undefined;
function nodeForNobody(): string {
  if (nodeCopy) return nodeCopy;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'probe-node-'));
  chmodSync(folder, 0o755);
  nodeCopy = path.join(folder, 'node');
  copyFileSync(process.execPath, nodeCopy);
  chmodSync(nodeCopy, 0o755);
  return nodeCopy;
}

function asNobody(app: TestApp, args: string[], preload: boolean) {
  const env = app.env({ preload: preload ? 'require' : 'none' });
  const child = startChild('runuser', ['-u', 'nobody', '--', nodeForNobody(), ...args], { cwd: app.dir, env });
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

describe('an empty store the user cannot write', { skip }, () => {
  for (const kind of ['folder', 'captures'] as const) {
    it(`${kind === 'folder' ? 'an app folder of 0555' : 'a read-only .probe/captures'}: the app as without Probe; probe list says why the store stays empty and fails`, async () => {
      const app = appFolder(kind);
      const plain = await asNobody(app, ['app.js'], false);
      assert.equal(plain.code, 0, plain.stderr);
      const probed = await asNobody(app, ['app.js'], true);
      assert.equal(probed.code, plain.code);
      assert.equal(probed.stdout, plain.stdout);
      const captures = path.join(app.dir, '.probe', 'captures');
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
});
