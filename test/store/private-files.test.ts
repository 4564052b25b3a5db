// Captures hold request bodies and headers: `.probe` and its folders are 0700 and capture files 0600 whatever the
// umask, and a `.probe` left readable by an older version is tightened once, with a line saying so. A real app
// under the preload, started through a shell that sets the umask.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';
import { collect, startChild } from '../helpers/child';

const selfServer = `const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  for (let i = 0; i < 3; i++) await (await fetch('http://127.0.0.1:' + port + '/n/' + i)).text();
  server.close();
  console.log('done');
});`;

function runWithUmask(app: TestApp, umask: string) {
  const child = startChild('/bin/sh', ['-c', `umask ${umask} && exec "${process.execPath}" app.js`], { cwd: app.dir, env: app.env() });
  return collect(child);
}

const mode = (file: string) => statSync(file).mode & 0o777;

function assertPrivate(app: TestApp): void {
  const probe = path.join(app.dir, '.probe');
  const captures = path.join(probe, 'captures');
  assert.equal(mode(probe).toString(8), '700');
  assert.equal(mode(captures).toString(8), '700');
  const files = readdirSync(captures);
  assert.ok(files.length >= 4, files.join(', '));
  for (const name of files) assert.equal(mode(path.join(captures, name)).toString(8), '600', name);
}

for (const umask of ['000', '022']) {
  test(`with umask ${umask}, .probe and its folders are created 0700 and capture files 0600`, async () => {
    const app = new TestApp({ 'app.js': selfServer });
    const run = await runWithUmask(app, umask);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, 'done\n');
    assertPrivate(app);
  });
}

test('a .probe readable by other users (an older version, umask 022) is tightened once, in one line', async () => {
  const app = new TestApp({ 'app.js': selfServer });
  const captures = path.join(app.dir, '.probe', 'captures');
  mkdirSync(captures, { recursive: true });
  const old = path.join(captures, '01700000000000000-OldCapture000.json');
  writeFileSync(old, '{"row":{}}');
  chmodSync(path.join(app.dir, '.probe'), 0o755);
  chmodSync(captures, 0o777);
  chmodSync(old, 0o644);
  const first = await runWithUmask(app, '022');
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, 'done\n');
  const lines = first.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, first.stderr);
  assert.match(lines[0]!, /^\[probe\] made .*\.probe private/);
  assertPrivate(app);
  const second = await runWithUmask(app, '022');
  assert.equal(second.code, 0);
  assert.equal(second.stderr, '', 'said once: nothing is loose any more');
});
