import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/*
 * `npm install` in a fresh clone rewrites package-lock.json when the lock's own name or version differs from the
 * manifest's (the checkout is then dirty before anyone changed anything).
 */
const ROOT = path.resolve(__dirname, '..', '..');

test("package-lock.json names the package as package.json does (a fresh clone's npm install leaves it unchanged)", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    name: string;
    version: string;
    packages: Record<string, { name?: string; version?: string }>;
  };
  assert.deepEqual([lock.name, lock.version], [manifest.name, manifest.version]);
  assert.deepEqual([lock.packages['']?.name, lock.packages['']?.version], [manifest.name, manifest.version]);
});
