import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SnapshotFileError, findSnapshotFiles, readSnapshotFile, writeSnapshotFile } from '../../src/snapshots/snapshotFiles';
import type { SnapshotFile } from '../../src/snapshots/Snapshot';

const file = (name: string): SnapshotFile => ({ probe_snapshot: 1, file: 'test/a.test.js', tests: { [name]: { calls: [] } } });

test('a snapshot file is written whole inside the project, and read back as written', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-snap-'));
  writeSnapshotFile(root, 'test/__probe__/a.test.js.json', file('a > b'));
  assert.deepEqual(readSnapshotFile(root, 'test/__probe__/a.test.js.json'), file('a > b'));
  // Rewritten in place: no temporary file is left beside it.
  writeSnapshotFile(root, 'test/__probe__/a.test.js.json', file('a > c'));
  assert.deepEqual(readdirSync(path.join(root, 'test', '__probe__')), ['a.test.js.json']);
  assert.deepEqual(findSnapshotFiles(root), ['test/__probe__/a.test.js.json']);
  assert.equal(readSnapshotFile(root, 'test/__probe__/b.test.js.json'), null, 'none yet');
});

test('never through a link: a linked __probe__ folder, a linked file, a path out of the project', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-snap-'));
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'probe-elsewhere-'));
  mkdirSync(path.join(root, 'test'));
  symlinkSync(elsewhere, path.join(root, 'test', '__probe__'), 'dir');
  assert.throws(() => writeSnapshotFile(root, 'test/__probe__/a.test.js.json', file('x')), SnapshotFileError);
  assert.deepEqual(readdirSync(elsewhere), [], 'nothing written where the link points');

  mkdirSync(path.join(root, 'spec', '__probe__'), { recursive: true });
  const target = path.join(elsewhere, 'victim.txt');
  writeFileSync(target, 'keep me');
  symlinkSync(target, path.join(root, 'spec', '__probe__', 'a.test.js.json'));
  assert.throws(() => writeSnapshotFile(root, 'spec/__probe__/a.test.js.json', file('x')), SnapshotFileError);
  assert.throws(() => readSnapshotFile(root, 'spec/__probe__/a.test.js.json'), SnapshotFileError);
  assert.equal(readFileSync(target, 'utf8'), 'keep me');

  assert.throws(() => writeSnapshotFile(root, '../outside/__probe__/a.json', file('x')), /not inside the project/);
  assert.equal(existsSync(path.join(path.dirname(root), 'outside')), false);
});

test('a snapshot file that is not one stops the check with its name', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-snap-'));
  mkdirSync(path.join(root, '__probe__'));
  writeFileSync(path.join(root, '__probe__', 'a.test.js.json'), '{"probe_snapshot": 1, "tests": {"x": {}}}');
  assert.throws(() => readSnapshotFile(root, '__probe__/a.test.js.json'), /__probe__\/a\.test\.js\.json: test "x" has no list of calls/);
  writeFileSync(path.join(root, '__probe__', 'a.test.js.json'), '<<<<<<< HEAD');
  assert.throws(() => readSnapshotFile(root, '__probe__/a.test.js.json'), /not JSON/);
});
