// Test apps live in temp folders; they find `probe` and the client libraries through a node_modules
// folder of links: every package of this repo's node_modules, plus `probe` itself.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

export function prepareTestModules(root, { fresh = false } = {}) {
  const target = path.join(root, '.cache', 'test-node_modules');
  if (fresh) rmSync(target, { recursive: true, force: true });
  if (existsSync(path.join(target, 'probe'))) return target;
  const staging = `${target}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const name of readdirSync(path.join(root, 'node_modules'))) {
    if (name.startsWith('.')) continue;
    symlinkSync(path.join(root, 'node_modules', name), path.join(staging, name));
  }
  symlinkSync(root, path.join(staging, 'probe'));
  try {
    renameSync(staging, target);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another process made it first
  }
  return target;
}
