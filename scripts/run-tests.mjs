// Runs every test file under test/ with node's own runner (globs in `node --test` need Node 21+).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { prepareTestModules } from './test-modules.mjs';

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2);

function find(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'fixtures' && entry.name !== 'helpers') out.push(...find(full));
    } else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const files = find(path.join(root, 'test'))
  .filter((file) => only.length === 0 || only.some((pattern) => file.includes(pattern)))
  .sort();
// PROBE_KEEP_TEST_MODULES=1 lets several runs share the folder (a fresh one is made per run otherwise).
prepareTestModules(root, { fresh: !process.env.PROBE_KEEP_TEST_MODULES });
const args = ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.PROBE_TEST_CONCURRENCY ?? 3}`, ...files];
const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env: { ...process.env, NODE_OPTIONS: '' } });
process.exit(result.status ?? 1);
