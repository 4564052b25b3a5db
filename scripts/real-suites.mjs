#!/usr/bin/env node
// Runs pinned commits of real projects' own test suites twice, without and with Probe's preload, and compares
// their outcomes test by test: a test that passes without Probe and fails with it (or the reverse, or that only
// one run saw) is a change Probe made to the app. Run before each release; the latest table goes in
// docs/compatibility.md.
//
//   npm run build && node scripts/real-suites.mjs [--sources DIR] [--only axios,nock-jest] [--cache DIR] [--markdown FILE]
//
// --sources DIR   where the projects' sources are: DIR/<name> (a checkout or a bare git directory) or
//                 DIR/<owner>+<repo>/repo (a mirror's layout). Each is read at its pinned commit with `git archive`.
//                 Without it the script clones each repository (git, from its URL) into the cache once.
// --cache DIR     where the sources are unpacked and installed (default ~/.cache/probe-suites): never inside this
//                 repository. Each project is installed once (npm install, the registry's current versions within
//                 the project's ranges) and reused.
// --only a,b      only these projects.
// --markdown FILE also writes the table (and the changed tests) as Markdown.
// A test is keyed by its file and full title; outcomes are passed, failed or skipped, read from the runner's own
// machine-readable report (Mocha's json reporter, node:test's TAP, Jest's and Vitest's JSON).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PRELOAD = path.join(REPO, 'dist', 'register.js');

const { values } = parseArgs({
  options: {
    sources: { type: 'string' },
    cache: { type: 'string', default: path.join(os.homedir(), '.cache', 'probe-suites') },
    only: { type: 'string' },
    markdown: { type: 'string' },
    timeout: { type: 'string', default: '1200' },
  },
});

/**
 * The projects, each at a pinned commit, with the command that runs its own suite and writes a report to `report`.
 * `files(dir)`: the test files, where the runner takes a list.
 */
const PROJECTS = [
  {
    name: 'axios',
    repo: 'axios/axios',
    commit: 'b2cb45d5a533a5465c99559b16987e4d5fc08cbc', // v1.7.9
    runner: 'Mocha',
    command: (report) => [
      'node_modules/.bin/mocha',
      'test/unit/**/*.js',
      '--timeout',
      '30000',
      '--exit',
      '--reporter',
      'json',
      '--reporter-option',
      `output=${report}`,
    ],
    parse: mochaJson,
  },
  {
    name: 'nock',
    repo: 'nock/nock',
    commit: '07fbfab489ca878fda0db9ad34b1cee6381bb21c',
    runner: 'Mocha',
    command: (report) => ['node_modules/.bin/mocha', '--recursive', 'tests', '--reporter', 'json', '--reporter-option', `output=${report}`],
    parse: mochaJson,
  },
  {
    name: 'nock-jest',
    repo: 'nock/nock',
    commit: '07fbfab489ca878fda0db9ad34b1cee6381bb21c',
    runner: 'Jest',
    command: (report) => ['node_modules/.bin/jest', 'tests_jest', '--json', `--outputFile=${report}`],
    parse: jestJson,
  },
  {
    name: 'undici',
    repo: 'nodejs/undici',
    commit: '9e38fc121d2eb26086d41c7d9379b47a6fada1c5', // v7.29.0, the last line that runs on Node 20
    runner: 'node:test',
    command: (report, dir) => [
      process.execPath,
      '--test',
      '--test-reporter=tap',
      // A file that hangs (one of undici's HTTP/2 files does on Node 20) is cancelled, not the whole run.
      '--test-timeout=120000',
      `--test-reporter-destination=${report}`,
      ...readdirSync(path.join(dir, 'test', 'node-test'))
        .filter((file) => file.endsWith('.js'))
        .sort()
        .map((file) => path.join('test', 'node-test', file)),
    ],
    parse: nodeTap,
  },
  {
    name: 'ofetch',
    repo: 'unjs/ofetch',
    commit: 'd61b2fcf7755ece3fa89b2eaa0415d1d1638216e', // v1.5.1
    runner: 'Vitest',
    command: (report) => ['node_modules/.bin/vitest', 'run', '--reporter=json', `--outputFile=${report}`],
    parse: jestJson,
  },
];

// ---- reports → { key: outcome } ----

function mochaJson(text) {
  const report = JSON.parse(text);
  const out = new Map();
  const add = (tests, outcome) => {
    for (const t of tests ?? []) out.set(`${path.basename(t.file ?? '')} > ${t.fullTitle}`, outcome);
  };
  add(report.passes, 'passed');
  add(report.failures, 'failed');
  add(report.pending, 'skipped');
  return out;
}

/** Jest's `--json` and Vitest's json reporter share this shape. */
function jestJson(text) {
  const report = JSON.parse(text);
  const out = new Map();
  for (const file of report.testResults ?? []) {
    const name = path.basename(file.name ?? file.testFilePath ?? '');
    for (const t of file.assertionResults ?? []) {
      const status = t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped';
      out.set(`${name} > ${t.fullName ?? [...(t.ancestorTitles ?? []), t.title].join(' ')}`, status);
    }
    // A file that failed to run at all has no assertions: it is one failed entry.
    if (!(file.assertionResults ?? []).length && file.status === 'failed') out.set(`${name} > (file)`, 'failed');
  }
  return out;
}

/** node:test's TAP: `# Subtest: name` lines nest by four spaces; each `ok`/`not ok` closes the title at its depth. */
function nodeTap(text) {
  const out = new Map();
  const titles = [];
  for (const line of text.split('\n')) {
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const depth = subtest[1].length / 4;
      titles.length = depth;
      titles[depth] = subtest[2];
      continue;
    }
    const result = /^( *)(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/.exec(line);
    if (!result) continue;
    const depth = result[1].length / 4;
    const key = [...titles.slice(0, depth), result[3]].join(' > ');
    out.set(key, result[4] ? 'skipped' : result[2] ? 'failed' : 'passed');
  }
  return out;
}

// ---- sources and installs ----

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${(result.stderr || result.stdout || '').slice(-3000)}`);
  return result.stdout;
}

/** A git directory holding the project's commit: given under --sources, or cloned into the cache once. */
function gitDirOf(project) {
  const [owner, name] = project.repo.split('/');
  if (values.sources) {
    for (const candidate of [path.join(values.sources, project.name), path.join(values.sources, name), path.join(values.sources, `${owner}+${name}`, 'repo')]) {
      if (!existsSync(candidate)) continue;
      if (existsSync(path.join(candidate, '.git'))) return path.join(candidate, '.git');
      if (existsSync(path.join(candidate, 'HEAD')) && existsSync(path.join(candidate, 'objects'))) return candidate;
    }
    throw new Error(`${project.name}: no checkout of ${project.repo} under ${values.sources}`);
  }
  const clone = path.join(values.cache, 'git', `${owner}+${name}.git`);
  if (!existsSync(clone)) run('git', ['clone', '--bare', '--filter=blob:none', `https://github.com/${project.repo}.git`, clone]);
  return clone;
}

/** The project's sources at its commit, installed: unpacked and `npm install`ed once per commit. */
function prepare(project) {
  const dir = path.join(values.cache, `${project.repo.replace('/', '+')}-${project.commit.slice(0, 12)}`);
  const marker = path.join(dir, '.probe-suites-installed');
  if (existsSync(marker)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const gitDir = gitDirOf(project);
  const archive = spawnSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', project.commit], { maxBuffer: 1024 * 1024 * 1024 });
  if (archive.status !== 0) throw new Error(`${project.name}: git archive ${project.commit}: ${archive.stderr}`);
  run('tar', ['-x', '-C', dir], { input: archive.stdout });
  // The project's lock file is npm's when it has one; else the registry's current versions within its ranges.
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
  writeFileSync(marker, new Date().toISOString());
  return dir;
}

// ---- one run ----

function runSuite(project, dir, withProbe) {
  const reports = path.join(values.cache, 'reports');
  mkdirSync(reports, { recursive: true });
  const report = path.join(reports, `${project.name}-${withProbe ? 'probe' : 'plain'}.${project.parse === nodeTap ? 'tap' : 'json'}`);
  rmSync(report, { force: true });
  const probeRoot = path.join(values.cache, 'probe-root', project.name);
  rmSync(probeRoot, { recursive: true, force: true });
  mkdirSync(probeRoot, { recursive: true });
  const env = { ...process.env, CI: 'true', NODE_OPTIONS: withProbe ? `--require ${PRELOAD}` : '', FORCE_COLOR: '0' };
  // Probe's store goes to a folder of its own, not into the project's checkout.
  if (withProbe) env.PROBE_ROOT = probeRoot;
  else delete env.PROBE_ROOT;
  const [command, ...args] = project.command(report, dir);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (d) => (tail = (tail + d).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), Number(values.timeout) * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (Date.now() - started) / 1000;
      let outcomes = new Map();
      let problem = null;
      try {
        outcomes = project.parse(readFileSync(report, 'utf8'));
      } catch (error) {
        problem = `no report (${signal ?? `exit ${code}`}): ${error.message}\n${tail}`;
      }
      const probeLines = tail.split('\n').filter((line) => line.includes('[probe]'));
      resolve({ code, signal, seconds, outcomes, problem, probeLines });
    });
  });
}

// ---- comparison ----

function count(outcomes, outcome) {
  let n = 0;
  for (const value of outcomes.values()) if (value === outcome) n++;
  return n;
}

function changes(plain, probe) {
  const out = [];
  for (const key of new Set([...plain.keys(), ...probe.keys()])) {
    const a = plain.get(key) ?? 'absent';
    const b = probe.get(key) ?? 'absent';
    if (a !== b) out.push({ key, plain: a, probe: b });
  }
  return out.sort((x, y) => x.key.localeCompare(y.key));
}

const chosen = values.only ? PROJECTS.filter((p) => values.only.split(',').includes(p.name)) : PROJECTS;
if (!existsSync(PRELOAD)) throw new Error(`${PRELOAD} is missing: npm run build first`);
if (path.resolve(values.cache).startsWith(REPO + path.sep)) throw new Error('--cache must be outside the repository');
mkdirSync(values.cache, { recursive: true });
const probeCommit = spawnSync('git', ['-C', REPO, 'rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['-C', REPO, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim()
  ? ' (with uncommitted changes)'
  : '';
console.log(
  `Probe ${probeCommit}${dirty}, Node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}`,
);

const rows = [];
const details = [];
for (const project of chosen) {
  let dir;
  try {
    dir = prepare(project);
  } catch (error) {
    console.log(`${project.name}: could not prepare: ${error.message.split('\n').slice(0, 6).join('\n')}`);
    rows.push([project.name, project.runner, project.commit.slice(0, 12), 'not run: sources or install failed', '', '', '', '', '']);
    continue;
  }
  console.log(`${project.name}: running without Probe…`);
  const plain = await runSuite(project, dir, false);
  console.log(`${project.name}: running with Probe…`);
  const probe = await runSuite(project, dir, true);
  const changed = plain.problem || probe.problem ? [] : changes(plain.outcomes, probe.outcomes);
  const summary = (r) => (r.problem ? 'no report' : `${count(r.outcomes, 'passed')} / ${count(r.outcomes, 'failed')} / ${count(r.outcomes, 'skipped')}`);
  rows.push([
    project.name,
    project.runner,
    project.commit.slice(0, 12),
    String(Math.max(plain.outcomes.size, probe.outcomes.size)),
    summary(plain),
    summary(probe),
    plain.problem || probe.problem ? '?' : String(changed.length),
    `${plain.seconds.toFixed(0)} s`,
    `${probe.seconds.toFixed(0)} s`,
  ]);
  for (const [label, r] of [
    ['without Probe', plain],
    ['with Probe', probe],
  ]) {
    if (r.problem) details.push(`${project.name}, ${label}: ${r.problem.split('\n').slice(0, 12).join('\n')}`);
  }
  if (probe.probeLines.length) details.push(`${project.name}, Probe said: ${[...new Set(probe.probeLines)].slice(0, 5).join(' | ')}`);
  for (const c of changed.slice(0, 40)) details.push(`${project.name}: ${c.key}: ${c.plain} → ${c.probe}`);
  if (changed.length > 40) details.push(`${project.name}: … and ${changed.length - 40} more`);
}

const headers = [
  'project',
  'runner',
  'commit',
  'tests',
  'without Probe (passed / failed / skipped)',
  'with Probe',
  'tests changed',
  'time without',
  'time with',
];
const markdown = [
  `| ${headers.join(' | ')} |`,
  `|${headers.map((_, i) => (i < 3 ? ':--' : '--:')).join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');
console.log(`\n${markdown}\n`);
for (const line of details) console.log(line);
if (values.markdown) {
  const heading = `Probe ${probeCommit}${dirty}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
  writeFileSync(values.markdown, `${heading}\n\n${markdown}\n\n${details.map((d) => `- ${d.replace(/\n/g, ' ')}`).join('\n')}\n`);
}
