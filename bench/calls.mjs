#!/usr/bin/env node
// Benchmark: CPU of the whole process per keep-alive loopback call, `fetch` and `node:http`, small and realistic
// answers, for: no instrumentation, plain OpenTelemetry, Probe (this build) and, with --baseline, Probe built from
// another folder (the build before a change), all in the same run. Each measurement is its own child process; every
// round runs each (client, answer, variant) once, variants in rotating order, so the ratios are paired within a
// round and a machine shared with other work loads them alike. Ratios are medians of the per-round ratios; the load
// average (1 min) at each measurement is printed beside every figure (median over the rounds, and the highest).
// Usage: node bench/calls.mjs [--baseline DIST_DIR] [--rounds 5] [--calls 2000] [--warm 300] [--mode script|jobs]
//          [--answers 0,8000] [--profile]
// DIST_DIR: a `dist` folder built from the code before the change (e.g. `git worktree add /tmp/base main && cd
// /tmp/base && npm ci && npm run build`, or a copy of that dist anywhere: Probe's dependencies are then resolved from
// this repository's node_modules through NODE_PATH).
import { parseArgs } from 'node:util';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { BENCH_DIR, REPO, prepareVariant, startChild, startUpstream, median, rotated, table, machine, loadAverage } from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    calls: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '300' },
    mode: { type: 'string', default: 'script' },
    answers: { type: 'string', default: '0,8000' },
    profile: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const answers = values.answers.split(',').map(Number);
const app = path.join(BENCH_DIR, 'calls-app.mjs');

/** A dist folder outside this repository gets Probe's dependencies from here (NODE_PATH: its code is CommonJS). */
function baselineVariant(dir) {
  const dist = path.resolve(dir);
  if (!existsSync(path.join(dist, 'register.js'))) throw new Error(`${dir}: no register.js (a built dist folder is expected)`);
  let env = {};
  try {
    createRequire(path.join(dist, 'register.js')).resolve('@opentelemetry/api');
  } catch {
    env = { NODE_PATH: path.join(REPO, 'node_modules') };
  }
  return { id: 'base', label: 'Probe before', dist, probe: true, env };
}

const variants = [
  { id: 'none', label: 'none' },
  { id: 'otel', label: 'plain OTel' },
  { id: 'probe', label: 'Probe' },
  ...(values.baseline ? [baselineVariant(values.baseline)] : []),
];
const clients = ['fetch', 'http'];
const upstreams = await Promise.all(answers.map((answerBytes) => startUpstream({ answerBytes })));
/** results[client][answer][variant] = [{ cpu, wall, load }] by round */
const results = {};
for (const client of clients) {
  results[client] = {};
  for (const a of answers) results[client][a] = Object.fromEntries(variants.map((v) => [v.id, []]));
}

const load1 = () => os.loadavg()[0];
console.log(`load average at the start: ${loadAverage()}`);
console.log(`calls: ${rounds} rounds × ${values.calls} calls (after ${values.warm} warm-up) per client, answer and variant, mode ${values.mode}, ${machine()}`);
const started = Date.now();
try {
  for (let round = 0; round < rounds; round++) {
    for (const client of clients) {
      for (const [i, a] of answers.entries()) {
        for (const variant of rotated(variants, round + i)) {
          const prepared = prepareVariant(variant, app);
          const flags =
            values.profile && variant.id !== 'none' ? ['--cpu-prof', '--cpu-prof-dir', path.join(os.tmpdir(), `probe-bench-prof-${variant.id}`)] : [];
          const loadBefore = load1();
          const run = startChild(prepared, [`${upstreams[i].url}/items?page=2`, client, values.calls, values.warm, values.mode], {
            flags,
            ready: /^result (.*)$/m,
          });
          const [, json] = await run.match;
          await run.done;
          const r = JSON.parse(json);
          // A baseline that made no span measures nothing (an ESM import that bypassed the instrumentation).
          if (variant.id === 'otel' && !(r.spans > 0))
            throw new Error(`the plain OTel baseline exported no span (${r.spans}): it did not instrument the calls`);
          results[client][a][variant.id].push({ cpu: r.cpu, wall: r.wall, load: (loadBefore + load1()) / 2 });
        }
      }
    }
    process.stdout.write(`  round ${round + 1}/${rounds} done (load ${loadAverage()})\n`);
  }
} finally {
  for (const u of upstreams) u.stop();
}

const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '-');
/** Median over the rounds of a / b, each round's pair measured minutes apart at most. */
const pairedRatio = (as, bs) => median(as.map((m, i) => m.cpu / bs[i].cpu));
const rows = [];
for (const client of clients) {
  for (const a of answers) {
    const r = results[client][a];
    const all = Object.values(r).flat();
    const loads = all.map((m) => m.load);
    const cpu = (id) => median(r[id].map((m) => m.cpu)).toFixed(0);
    rows.push([
      client === 'http' ? 'node:http' : 'fetch',
      a ? `${(a / 1000).toFixed(0)} kB JSON` : 'tiny',
      cpu('none'),
      cpu('otel'),
      cpu('probe'),
      ...(values.baseline ? [cpu('base')] : []),
      x(pairedRatio(r.probe, r.otel)),
      x(pairedRatio(r.probe, r.none)),
      ...(values.baseline ? [x(pairedRatio(r.base, r.otel)), x(pairedRatio(r.base, r.none)), x(pairedRatio(r.probe, r.base))] : []),
      `${median(loads).toFixed(1)} (max ${Math.max(...loads).toFixed(1)})`,
    ]);
  }
}
const headers = [
  'client',
  'answer',
  'none µs',
  'OTel µs',
  'Probe µs',
  ...(values.baseline ? ['before µs'] : []),
  'Probe / OTel',
  'Probe / none',
  ...(values.baseline ? ['before / OTel', 'before / none', 'Probe / before'] : []),
  'load avg',
];
console.log(`\nload average at the end: ${loadAverage()}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`CPU of the whole process per call (µs, medians over ${rounds} rounds; ratios: medians of each round's paired ratio), mode ${values.mode}:\n`);
console.log(table(headers, rows));
if (values.profile) console.log(`\nprofiles: ${path.join(os.tmpdir(), 'probe-bench-prof-<variant>')}/`);
