#!/usr/bin/env node
// Benchmark: CPU of the whole process per keep-alive loopback call, `fetch` and `node:http`, small and realistic
// answers, for: no instrumentation, plain OpenTelemetry, Probe (this build) and, with --baseline, Probe built from
// another folder (the build before a change), all in the same run. Each measurement is its own child process; every
// round runs each (client, answer, variant) once, variants in rotating order, so the ratios are paired within a
// round and a machine shared with other work loads them alike. Ratios are medians of the per-round ratios; the load
// average (1 min) at each measurement is printed beside every figure (median over the rounds, and the highest).
// With two call counts (`--calls 2000,10000`) each measurement runs at both, and a second table splits the CPU into
// what a process pays once (the intercept: starting the store's thread, compiling hot functions, in a script the
// rows of its first max_rows calls) and what each further call adds (the slope between the two counts).
// Usage: node bench/calls.mjs [--baseline DIST_DIR] [--rounds 5] [--calls 2000[,10000]] [--warm 300] [--mode script|jobs]
//          [--answers 0,8000] [--profile] [--otlp]
// --otlp adds OpenTelemetry as a tracing user runs it, exporting OTLP/HTTP protobuf to a loopback sink in this
// process (bench/otel-otlp-preload.cjs): what a tracer costs the app when its spans really leave.
// DIST_DIR: a `dist` folder built from the code before the change (e.g. `git worktree add /tmp/base main && cd
// /tmp/base && npm ci && npm run build`, or a copy of that dist anywhere: Probe's dependencies are then resolved from
// this repository's node_modules through NODE_PATH).
import { parseArgs } from 'node:util';
import http from 'node:http';
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
    otlp: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const counts = values.calls.split(',').map(Number);
if (counts.length > 2 || counts.some((n) => !Number.isInteger(n) || n <= 0) || (counts.length === 2 && counts[1] <= counts[0]))
  throw new Error(`--calls: one count, or two in increasing order (2000,10000), not ${values.calls}`);
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

/** The OTLP variant's backend: counts the export requests it receives (proof that spans left the app). */
function startSink() {
  const sink = { requests: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sink.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(Object.assign(sink, { port: server.address().port, close: () => server.close() }))),
  );
}
const sink = values.otlp ? await startSink() : null;

const variants = [
  { id: 'none', label: 'none' },
  { id: 'otel', label: 'plain OTel' },
  ...(sink
    ? [
        {
          id: 'otlp',
          label: 'OTel exporting OTLP',
          preloadFile: path.join(BENCH_DIR, 'otel-otlp-preload.cjs'),
          env: { BENCH_OTLP_URL: `http://127.0.0.1:${sink.port}/v1/traces` },
        },
      ]
    : []),
  { id: 'probe', label: 'Probe' },
  ...(values.baseline ? [baselineVariant(values.baseline)] : []),
];
const clients = ['fetch', 'http'];
const upstreams = await Promise.all(answers.map((answerBytes) => startUpstream({ answerBytes })));
/** results[client][answer][variant][count index] = [{ cpu, wall, load }] by round */
const results = {};
for (const client of clients) {
  results[client] = {};
  for (const a of answers) results[client][a] = Object.fromEntries(variants.map((v) => [v.id, counts.map(() => [])]));
}

const load1 = () => os.loadavg()[0];
console.log(`load average at the start: ${loadAverage()}`);
console.log(
  `calls: ${rounds} rounds × ${counts.join(' and ')} calls (after ${values.warm} warm-up) per client, answer and variant, mode ${values.mode}, ${machine()}`,
);
const started = Date.now();
try {
  for (let round = 0; round < rounds; round++) {
    for (const client of clients) {
      for (const [i, a] of answers.entries()) {
        for (const variant of rotated(variants, round + i)) {
          for (const [k, count] of counts.entries()) {
            const prepared = prepareVariant(variant, app);
            const flags =
              values.profile && variant.id !== 'none' ? ['--cpu-prof', '--cpu-prof-dir', path.join(os.tmpdir(), `probe-bench-prof-${variant.id}`)] : [];
            const loadBefore = load1();
            const run = startChild(prepared, [`${upstreams[i].url}/items?page=2`, client, String(count), values.warm, values.mode], {
              flags,
              ready: /^result (.*)$/m,
            });
            const [, json] = await run.match;
            await run.done;
            const r = JSON.parse(json);
            // A baseline that made no span measures nothing (an ESM import that bypassed the instrumentation).
            if ((variant.id === 'otel' || variant.id === 'otlp') && !(r.spans > 0))
              throw new Error(`the ${variant.label} baseline exported no span (${r.spans}): it did not instrument the calls`);
            if (variant.id === 'otlp' && sink.requests === 0) throw new Error('the OTLP baseline sent nothing to its sink');
            results[client][a][variant.id][k].push({ cpu: r.cpu, wall: r.wall, load: (loadBefore + load1()) / 2 });
          }
        }
      }
    }
    process.stdout.write(`  round ${round + 1}/${rounds} done (load ${loadAverage()})\n`);
  }
} finally {
  for (const u of upstreams) u.stop();
  sink?.close();
}

const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '-');
/** Median over the rounds of a / b, each round's pair measured minutes apart at most. */
const pairedRatio = (as, bs) => median(as.map((m, i) => m.cpu / bs[i].cpu));
const label = (client, a) => [client === 'http' ? 'node:http' : 'fetch', a ? `${(a / 1000).toFixed(0)} kB JSON` : 'tiny'];
const loadsOf = (r) => {
  const loads = Object.values(r)
    .flat(2)
    .map((m) => m.load);
  return `${median(loads).toFixed(1)} (max ${Math.max(...loads).toFixed(1)})`;
};
console.log(`\nload average at the end: ${loadAverage()}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
for (const [k, count] of counts.entries()) {
  const rows = [];
  for (const client of clients) {
    for (const a of answers) {
      const r = Object.fromEntries(Object.entries(results[client][a]).map(([id, byCount]) => [id, byCount[k]]));
      const cpu = (id) => median(r[id].map((m) => m.cpu)).toFixed(0);
      rows.push([
        ...label(client, a),
        cpu('none'),
        cpu('otel'),
        ...(sink ? [cpu('otlp')] : []),
        cpu('probe'),
        ...(values.baseline ? [cpu('base')] : []),
        x(pairedRatio(r.probe, r.otel)),
        ...(sink ? [x(pairedRatio(r.probe, r.otlp))] : []),
        x(pairedRatio(r.probe, r.none)),
        ...(values.baseline ? [x(pairedRatio(r.base, r.otel)), x(pairedRatio(r.base, r.none)), x(pairedRatio(r.probe, r.base))] : []),
        loadsOf(r),
      ]);
    }
  }
  const headers = [
    'client',
    'answer',
    'none µs',
    'OTel µs',
    ...(sink ? ['OTLP µs'] : []),
    'Probe µs',
    ...(values.baseline ? ['before µs'] : []),
    'Probe / OTel',
    ...(sink ? ['Probe / OTLP'] : []),
    'Probe / none',
    ...(values.baseline ? ['before / OTel', 'before / none', 'Probe / before'] : []),
    'load avg',
  ];
  console.log(
    `\nCPU of the whole process per call over ${count} calls (µs, medians over ${rounds} rounds; ratios: medians of each round's paired ratio), mode ${values.mode}:\n`,
  );
  console.log(table(headers, rows));
}
if (counts.length === 2) {
  const [n1, n2] = counts;
  /** One round's split of a variant: µs per further call (slope) and ms paid once (intercept). */
  const split = (byCount, round) => {
    const t1 = byCount[0][round].cpu * n1;
    const t2 = byCount[1][round].cpu * n2;
    const slope = (t2 - t1) / (n2 - n1);
    return { slope, once: (t1 - slope * n1) / 1000 };
  };
  const ids = ['otel', ...(sink ? ['otlp'] : []), 'probe', ...(values.baseline ? ['base'] : [])];
  const rows = [];
  for (const client of clients) {
    for (const a of answers) {
      const r = results[client][a];
      const s = Object.fromEntries([...ids, 'none'].map((id) => [id, r[id][0].map((_, round) => split(r[id], round))]));
      const med = (id, key, digits) => median(s[id].map((m) => m[key])).toFixed(digits);
      const slopeRatio = (id, base) => x(median(s[id].map((m, round) => m.slope / s[base][round].slope)));
      const onceMore = (id) => median(s[id].map((m, round) => m.once - s.otel[round].once)).toFixed(0);
      rows.push([
        ...label(client, a),
        med('none', 'slope', 0),
        med('otel', 'slope', 0),
        med('probe', 'slope', 0),
        slopeRatio('probe', 'otel'),
        ...(sink ? [slopeRatio('probe', 'otlp')] : []),
        ...(values.baseline ? [slopeRatio('base', 'otel')] : []),
        med('otel', 'once', 0),
        med('probe', 'once', 0),
        onceMore('probe'),
        ...(values.baseline ? [onceMore('base')] : []),
        loadsOf(r),
      ]);
    }
  }
  const headers = [
    'client',
    'answer',
    'none µs/call',
    'OTel µs/call',
    'Probe µs/call',
    'Probe / OTel per call',
    ...(sink ? ['Probe / OTLP per call'] : []),
    ...(values.baseline ? ['before / OTel per call'] : []),
    'OTel ms once',
    'Probe ms once',
    'Probe − OTel ms once',
    ...(values.baseline ? ['before − OTel ms once'] : []),
    'load avg',
  ];
  console.log(
    `\nSplit (medians over ${rounds} rounds of each round's own fit): CPU each call after the ${n1 + Number(values.warm)}th adds (slope from ${n1} to ${n2} calls) and CPU paid once per process (intercept, ms), mode ${values.mode}:\n`,
  );
  console.log(table(headers, rows));
}
if (values.profile) console.log(`\nprofiles: ${path.join(os.tmpdir(), 'probe-bench-prof-<variant>')}/`);
