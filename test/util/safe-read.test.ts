import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSafe, readSafe, readSafeAsync, readSafeText } from '../../src/util/safeRead';

const SRC = path.resolve(__dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(m?ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

test('every file Probe reads goes through safeRead (configuration files aside: they are code the app runs)', () => {
  const direct = /\b(readFileSync|readFile|createReadStream)\s*\(/;
  const allowed = new Set(['util/safeRead.ts', 'config/load.ts']);
  const found = sourceFiles(SRC)
    .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
    .filter((file) => !allowed.has(file) && !file.startsWith('dashboard/ui/'))
    .filter((file) =>
      readFileSync(path.join(SRC, file), 'utf8')
        .split('\n')
        .some((line) => direct.test(line) && !line.trim().startsWith('//')),
    );
  assert.deepEqual(found, []);
});

test('a FIFO, a device, a link, a file too large: refused, never waited on, never read past the limit', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-safe-read-'));
  const fifo = path.join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  symlinkSync('/dev/zero', path.join(dir, 'zero.json'));
  writeFileSync(path.join(dir, 'small.json'), '{"a":1}');
  symlinkSync(path.join(dir, 'small.json'), path.join(dir, 'link.json'));
  writeFileSync(path.join(dir, 'big.json'), 'x'.repeat(1025));

  const limits = { maxBytes: 1024 };
  assert.equal(readSafeText(path.join(dir, 'small.json'), limits), '{"a":1}');
  assert.throws(() => readSafe(fifo, limits), { code: 'PROBE_FILE_NOT_REGULAR' });
  await assert.rejects(readSafeAsync(fifo, limits), { code: 'PROBE_FILE_NOT_REGULAR' });
  assert.throws(() => readSafe(path.join(dir, 'zero.json'), limits), { code: 'ELOOP' });
  // Followed on purpose (the app's own files), a link still leads only to a regular file.
  assert.throws(() => readSafe(path.join(dir, 'zero.json'), { ...limits, follow: true }), { code: 'PROBE_FILE_NOT_REGULAR' });
  assert.throws(() => readSafe(path.join(dir, 'link.json'), limits), { code: 'ELOOP' });
  assert.equal(readSafeText(path.join(dir, 'link.json'), { ...limits, follow: true }), '{"a":1}');
  assert.throws(() => readSafe(path.join(dir, 'big.json'), limits), { code: 'PROBE_FILE_TOO_LARGE' });
  await assert.rejects(readSafeAsync(path.join(dir, 'big.json'), limits), { code: 'PROBE_FILE_TOO_LARGE' });
  assert.throws(() => readSafe(path.join(dir, 'missing.json'), limits), { code: 'ENOENT' });

  const opened = openSafe(path.join(dir, 'small.json'), limits);
  closeSync(opened.fd);
  assert.equal(opened.size, 7);
  assert.equal(readSafe(path.join(dir, 'big.json'), { maxBytes: 1025 }).length, 1025);

  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    execFileSync('chown', ['65534', path.join(dir, 'small.json')]);
    assert.throws(() => readSafe(path.join(dir, 'small.json'), { ...limits, ownOnly: true }), { code: 'PROBE_FILE_NOT_OWNED' });
  }
});
