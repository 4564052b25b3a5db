#!/usr/bin/env node
// Profiles both of Probe's threads in the peers app (bench/peers-app.cjs) under load: the app's thread with
// `--cpu-prof`, and the store's thread from inside (`node:inspector`), since `--cpu-prof` writes no profile for a
// worker terminated at exit. The store thread's file is patched in a copy of dist/ under bench/.exp/ (never in
// dist/ itself); both profiles are then summarised by bench/profile-top.mjs.
// Usage: node bench/profile-thread.mjs [--answer 50k] [--seconds 8] [--connections 16] [--out DIR] [--rate 0.1 (sampling.rate)]
import { parseArgs } from 'node:util';
import path from 'node:path';
import os from 'node:os';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { BENCH_DIR, REPO, prepareVariant, startChild, startUpstream, loadAverage } from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    answer: { type: 'string', default: '50k' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    out: { type: 'string' },
    rate: { type: 'string' },
  },
});
const m = /^(\d+)([km]?)$/i.exec(values.answer);
if (!m) throw new Error(`--answer: ${values.answer}`);
const bytes = Number(m[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
const seconds = Number(values.seconds);
const out = path.resolve(values.out ?? mkdtempSync(path.join(os.tmpdir(), 'probe-profile-')));
mkdirSync(out, { recursive: true });

// The copy of dist/ whose store thread profiles itself for `seconds` after it starts, then writes the profile.
const copy = path.join(BENCH_DIR, '.exp', 'profile-thread');
rmSync(copy, { recursive: true, force: true });
cpSync(path.join(REPO, 'dist'), copy, { recursive: true });
const threadFile = path.join(copy, 'store', 'storeThread.js');
const probe = `{
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start', () => {}));
  setTimeout(() => session.post('Profiler.stop', (error, result) => {
    if (!error) require('node:fs').writeFileSync(${JSON.stringify(path.join(out, 'store-thread.cpuprofile'))}, JSON.stringify(result.profile));
  }), ${seconds * 1000}).unref();
}
`;
const text = readFileSync(threadFile, 'utf8');
if (!text.includes('"use strict";\n')) throw new Error(`${threadFile}: not the compiled file this script expects`);
writeFileSync(threadFile, text.replace('"use strict";\n', `"use strict";\n${probe}`));

const upstream = await startUpstream({ answerBytes: bytes });
const variant = prepareVariant({ id: 'try', dist: copy, env: values.rate ? { PROBE_SAMPLE_RATE: values.rate } : {} }, path.join(BENCH_DIR, 'peers-app.cjs'));
const run = startChild(variant, [upstream.url], { ipc: true, flags: ['--cpu-prof', '--cpu-prof-dir', out] });
try {
  const [, port] = await run.match;
  const url = `http://127.0.0.1:${port}/checkout`;
  await autocannon({ url, connections: Number(values.connections), duration: 2 });
  const r = await autocannon({ url, connections: Number(values.connections), duration: seconds + 1 });
  console.log(`${r.requests.total} requests in ${seconds + 1} s, answers of ${bytes} bytes, load average ${loadAverage()}`);
} finally {
  run.child.kill('SIGTERM');
  await run.done;
  upstream.stop();
}
const files = readdirSync(out)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => path.join(out, f));
console.log(`profiles in ${out}`);
spawnSync(process.execPath, [path.join(BENCH_DIR, 'profile-top.mjs'), ...files, '--top', '20'], {
  stdio: 'inherit',
  env: { ...process.env, PROFILE_DIST: copy },
});
