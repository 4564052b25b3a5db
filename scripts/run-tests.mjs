// Runs the test files under test/ with node's own runner (globs in `node --test` need Node 21+).
//   node scripts/run-tests.mjs                  every file
//   node scripts/run-tests.mjs lens/ store/     the files whose path contains one of these
//   node scripts/run-tests.mjs --subset         the representative subset CI runs on the other Node lines
//                                               (test/node-lines.txt)
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepareTestModules } from './test-modules.mjs';

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const subset = argv.includes('--subset');
const only = argv.filter((arg) => arg !== '--subset');

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

/** The subset's entries: one path (or folder) under test/ a line, `#` comments. */
function subsetEntries() {
  return readFileSync(path.join(root, 'test', 'node-lines.txt'), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((entry) => path.join(root, 'test', entry));
}

let files = find(path.join(root, 'test')).sort();
if (subset) {
  const entries = subsetEntries();
  for (const entry of entries)
    if (!files.some((file) => file === entry || file.startsWith(entry + path.sep))) throw new Error(`test/node-lines.txt: ${entry} names no test file`);
  files = files.filter((file) => entries.some((entry) => file === entry || file.startsWith(entry + path.sep)));
}
files = files.filter((file) => only.length === 0 || only.some((pattern) => file.includes(pattern)));
if (files.length === 0) {
  console.error(`no test file matches ${only.join(' ')}`);
  process.exit(1);
}

// Time limits, generous (the machine is shared and loaded; a limit ends a hang, it does not judge speed).
// Node 24 and later apply --test-timeout to each test; Node 20 and 22 apply it to each file, ending the file's
// process (scripts/test-watchdog.mjs then kills the children its tests started).
const perTest = Number(process.env.PROBE_TEST_TIMEOUT ?? 10 * 60_000);
const perFile = Number(process.env.PROBE_TEST_FILE_TIMEOUT ?? 45 * 60_000);
const major = Number(process.versions.node.split('.')[0]);
const timeout = major >= 24 ? perTest : perFile;

// PROBE_KEEP_TEST_MODULES=1 lets several runs share the folder (a fresh one is made per run otherwise).
prepareTestModules(root, { fresh: !process.env.PROBE_KEEP_TEST_MODULES });
const watchdog = pathToFileURL(path.join(root, 'scripts', 'test-watchdog.mjs')).href;
const args = [
  '--import',
  'tsx',
  '--import',
  watchdog,
  '--test',
  '--test-reporter=spec',
  `--test-timeout=${timeout}`,
  `--test-concurrency=${process.env.PROBE_TEST_CONCURRENCY ?? 3}`,
  ...files,
];
console.log(`run-tests: ${files.length} files on Node ${process.version}${subset ? ' (subset: test/node-lines.txt)' : ''}`);
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, NODE_OPTIONS: '', PROBE_TEST_FILE_TIMEOUT: String(perFile) },
});
process.exit(result.status ?? 1);
