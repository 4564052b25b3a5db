import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LEARNED_FILE, MAX_LEARNED, forgetLearned, readLearned, rememberLearned } from '../../src/origin/hops/learnedFile';

function freshRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'probe-learned-file-'));
}

test('the learned list: kept by name and version, private, newest last, at most MAX_LEARNED, one entry per name@version', () => {
  const root = freshRoot();
  try {
    assert.deepEqual(readLearned(root), []);
    for (let i = 0; i < MAX_LEARNED + 3; i++) rememberLearned(root, { name: `@scope/pkg-${i}`, version: '1.2.3-beta.1', esm: i % 2 === 0 });
    rememberLearned(root, { name: '@scope/pkg-5', version: '1.2.3-beta.1', esm: false });
    const list = readLearned(root);
    assert.equal(list.length, MAX_LEARNED);
    assert.deepEqual(list.at(-1), { name: '@scope/pkg-5', version: '1.2.3-beta.1', esm: false });
    assert.equal(list.filter((p) => p.name === '@scope/pkg-5').length, 1);
    assert.ok(!list.some((p) => p.name === '@scope/pkg-0'));
    assert.equal(fs.statSync(path.join(root, '.probe', LEARNED_FILE)).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(root, '.probe')).mode & 0o777, 0o700);
    // Nothing else is left in the folder (no temporary file).
    assert.deepEqual(fs.readdirSync(path.join(root, '.probe')), [LEARNED_FILE]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('what is not a package name and version is neither kept nor read: paths, upper case, code, odd versions', () => {
  const root = freshRoot();
  try {
    for (const [name, version] of [
      ['../../etc', '1.0.0'],
      ['/abs/path', '1.0.0'],
      ['Upper', '1.0.0'],
      ['x; require("child_process")', '1.0.0'],
      ['ok', 'latest'],
      ['ok', '1.0.0 || 2'],
    ])
      rememberLearned(root, { name, version, esm: false });
    assert.equal(fs.existsSync(path.join(root, '.probe', LEARNED_FILE)), false);
    const file = path.join(root, '.probe', LEARNED_FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const write = (value: unknown) => fs.writeFileSync(file, JSON.stringify(value), { mode: 0o600 });
    write({ packages: [{ name: 'ok', version: '1.0.0', esm: false }] });
    assert.deepEqual(readLearned(root), [{ name: 'ok', version: '1.0.0', esm: false }]);
    // One bad entry, a wrong type, too many entries, no list: the whole file is ignored.
    write({
      packages: [
        { name: 'ok', version: '1.0.0', esm: false },
        { name: '../x', version: '1.0.0', esm: false },
      ],
    });
    assert.deepEqual(readLearned(root), []);
    write({ packages: [{ name: 'ok', version: '1.0.0', esm: 'yes' }] });
    assert.deepEqual(readLearned(root), []);
    write({ packages: Array.from({ length: MAX_LEARNED + 1 }, (_, i) => ({ name: `p${i}`, version: '1.0.0', esm: false })) });
    assert.deepEqual(readLearned(root), []);
    write(['ok']);
    assert.deepEqual(readLearned(root), []);
    // A FIFO in its place: not read (never blocks), not fatal.
    fs.rmSync(file);
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [file]);
      assert.deepEqual(readLearned(root), []);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('entries taken off the list: the rest kept in order, private; a list holding none of them is left as it was', () => {
  const root = freshRoot();
  try {
    for (const name of ['a', 'b', 'c']) rememberLearned(root, { name, version: '1.0.0', esm: false });
    const file = path.join(root, '.probe', LEARNED_FILE);
    const before = fs.statSync(file).ino;
    forgetLearned(root, (entry) => entry.name === 'none');
    assert.equal(fs.statSync(file).ino, before);
    forgetLearned(root, (entry) => entry.name === 'b');
    assert.deepEqual(
      readLearned(root).map((entry) => entry.name),
      ['a', 'c'],
    );
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    forgetLearned(root, () => true);
    assert.deepEqual(readLearned(root), []);
    assert.deepEqual(fs.readdirSync(path.join(root, '.probe')), [LEARNED_FILE]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
