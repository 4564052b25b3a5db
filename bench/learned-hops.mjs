#!/usr/bin/env node
// Benchmark: what remembering libraries that hop costs (src/origin/hops, src/lens/learnedHops.ts).
// 1. Per require: a process loading --modules small packages (each exporting a class), under no Probe, under Probe
//    with no learned list, with 16 learned packages it never loads (installed, not required), and with 16 it loads
//    (hooked at load). CPU µs per require, median of the rounds.
// 2. Per request: an express 4 app (GET / answers 'ok'), under Probe with no list and with express itself learned
//    (what hooking the exported classes of every package the app requires that loads node:http would do: express
//    does). Server CPU µs per request under autocannon, median of the rounds.
// Usage: node bench/learned-hops.mjs [--rounds 5] [--modules 1500] [--seconds 4] [--requires-only]
import { parseArgs } from 'node:util';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { REPO, loadAverage, machine, median, rotated, table } from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    modules: { type: 'string', default: '1500' },
    seconds: { type: 'string', default: '4' },
    'requires-only': { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const modules = Number(values.modules);
const REGISTER = path.join(REPO, 'dist', 'register.js');
const EXPRESS = '4.22.3';
const CACHE = path.join(os.homedir(), '.cache', 'probe-bench-learned-hops');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-bench-learned-'));
fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"bench-learned","version":"1.0.0"}');
for (let i = 0; i < modules; i++) {
  const pkg = path.join(dir, 'node_modules', `m${i}`);
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: `m${i}`, version: '1.0.0' }));
  fs.writeFileSync(path.join(pkg, 'index.js'), `class C${i} { get(a) { return a; } post(a) { return a; } }\nmodule.exports = { C${i} };\n`);
}
fs.writeFileSync(
  path.join(dir, 'load.cjs'),
  `const start = process.cpuUsage();\nfor (let i = 0; i < ${modules}; i++) require('m' + i);\nconst used = process.cpuUsage(start);\nconsole.log(((used.user + used.system) / ${modules}).toFixed(2));\n`,
);
// The 16 learned packages it never loads are installed too: a list entry the app's node_modules do not hold at its
// version is refused at start (origin/hops/hookable.ts), which would leave nothing to measure.
for (let i = 0; i < 16; i++) {
  const pkg = path.join(dir, 'node_modules', `absent${i}`);
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: `absent${i}`, version: '1.0.0' }));
  fs.writeFileSync(path.join(pkg, 'index.js'), `class A${i} { get(a) { return a; } }\nmodule.exports = { A${i} };\n`);
}
const list = (names) => JSON.stringify({ packages: names.map((name) => ({ name, version: '1.0.0', esm: false })) });
const sixteen = (prefix) => Array.from({ length: 16 }, (_, i) => `${prefix}${i}`);

/** Runs `script` in `cwd` with the preload (or none) and the learned list (null: no file); returns its stdout. */
function runOnce(cwd, script, probe, learned) {
  fs.rmSync(path.join(cwd, '.probe'), { recursive: true, force: true });
  if (learned !== null) {
    fs.mkdirSync(path.join(cwd, '.probe'), { mode: 0o700 });
    fs.writeFileSync(path.join(cwd, '.probe', 'learned-hops.json'), learned, { mode: 0o600 });
  }
  const env = { ...process.env, NODE_OPTIONS: probe ? `--require ${REGISTER}` : '' };
  return execFileSync(process.execPath, [script], { cwd, env, encoding: 'utf8' }).trim();
}

console.log(`# remembered libraries that hop: cost per require and per request`);
console.log(`# ${machine()}; load average at start ${loadAverage()}`);
const requireVariants = [
  ['no Probe', false, null],
  ['Probe, no learned list', true, null],
  ['Probe, 16 learned, none loaded', true, list(sixteen('absent'))],
  ['Probe, 16 learned, all loaded', true, list(sixteen('m'))],
];
const perRequire = requireVariants.map(() => []);
for (let round = 0; round < rounds; round++)
  for (const [i] of rotated(
    requireVariants.map((_, k) => [k]),
    round,
  )) {
    const [, probe, learned] = requireVariants[i];
    perRequire[i].push(Number(runOnce(dir, 'load.cjs', probe, learned)));
  }
console.log(`\n## ${modules} packages required once each: CPU µs per require (median of ${rounds})`);
console.log(
  table(
    ['variant', 'µs/require'],
    requireVariants.map(([name], i) => [name, median(perRequire[i]).toFixed(2)]),
  ),
);

if (values['requires-only']) {
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

// The express app, installed once (pinned) outside the repository.
const appDir = path.join(CACHE, `express-${EXPRESS}`);
if (!fs.existsSync(path.join(appDir, 'node_modules', 'express'))) {
  fs.mkdirSync(appDir, { recursive: true });
  fs.writeFileSync(path.join(appDir, 'package.json'), JSON.stringify({ name: 'bench-express', version: '1.0.0', dependencies: { express: EXPRESS } }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent'], { cwd: appDir, stdio: 'inherit' });
}
fs.writeFileSync(
  path.join(appDir, 'server.cjs'),
  `const express = require('express');\nconst app = express();\napp.get('/', (req, res) => res.send('ok'));\n` +
    `app.get('/cpu', (req, res) => { const u = process.cpuUsage(); res.send(String(u.user + u.system)); });\n` +
    `const server = app.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));\n`,
);

async function serve(learned) {
  fs.rmSync(path.join(appDir, '.probe'), { recursive: true, force: true });
  if (learned !== null) {
    fs.mkdirSync(path.join(appDir, '.probe'), { mode: 0o700 });
    fs.writeFileSync(path.join(appDir, '.probe', 'learned-hops.json'), learned, { mode: 0o600 });
  }
  const child = spawn(process.execPath, ['server.cjs'], {
    cwd: appDir,
    env: { ...process.env, NODE_OPTIONS: `--require ${REGISTER}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const cpu = async () => Number(await (await fetch(`${url}/cpu`)).text());
  await autocannon({ url, connections: 8, duration: 1 });
  const before = await cpu();
  const result = await autocannon({ url, connections: 8, duration: Number(values.seconds) });
  const used = (await cpu()) - before;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
  return used / result.requests.total;
}

const requestVariants = [
  ['Probe, no learned list', null],
  [`Probe, express@${EXPRESS} learned`, JSON.stringify({ packages: [{ name: 'express', version: EXPRESS, esm: false }] })],
];
const perRequest = requestVariants.map(() => []);
for (let round = 0; round < rounds; round++)
  for (const [i] of rotated(
    requestVariants.map((_, k) => [k]),
    round,
  ))
    perRequest[i].push(await serve(requestVariants[i][1]));
console.log(`\n## express ${EXPRESS}, GET / 'ok': server CPU µs per request (median of ${rounds})`);
console.log(
  table(
    ['variant', 'µs/request'],
    requestVariants.map(([name], i) => [name, median(perRequest[i]).toFixed(1)]),
  ),
);
fs.rmSync(dir, { recursive: true, force: true });
