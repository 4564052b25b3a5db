#!/usr/bin/env node
// Benchmark: what a preload costs a process that does nothing, `node -e 0`: bare Node, plain OpenTelemetry's
// preload (bench/otel-preload.cjs: tracer provider, batch processor, http + undici instrumentations) and Probe's
// (`--require probe/register`, defaults). This is what a test runner that starts a process per file, or a short
// script, pays per process. Each round runs every variant once, in a rotated order, so that the machine's drift
// falls on all of them alike; prints min and median of wall time and of the process's own CPU (every thread, read
// at exit by bench/lib/exit-report.cjs), Probe against plain OTel as a ratio and in ms, the files each loads, and
// the load average at the start and the end (the VM's cores are shared).
// Usage: node bench/startup.mjs [--rounds 30] [--variants none,otel,probe] [--try <a build's dist>] [--script <file>] [--env K=V]
//   --try: a build of Probe in another folder (e.g. the build before a change), run as one more variant
//   --env: set for every Probe variant (e.g. PROBE_SAMPLE_RATE=0.1: a setting, as a config file's, to validate)
//   --script: a file to run instead of `-e 0` (e.g. an app that only requires its modules)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, VARIANTS, loadAverage, machine, median, prepareVariant, rotated, table, tryVariant } from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '30' },
    variants: { type: 'string', default: 'none,otel,probe' },
    try: { type: 'string' },
    script: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const probeEnv = Object.fromEntries(
  values.env.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env: KEY=VALUE, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
const REPORTER = path.join(BENCH_DIR, 'lib', 'exit-report.cjs');
const EMPTY_APP = path.join(BENCH_DIR, 'lib', 'empty-app.cjs');

const chosen = values.variants.split(',').map((id) => {
  const variant = VARIANTS.find((v) => v.id === id);
  if (!variant) throw new Error(`unknown variant ${id}: one of ${VARIANTS.map((v) => v.id).join(', ')}`);
  return variant;
});
if (values.try) chosen.push(tryVariant(values.try));
const prepared = chosen.map((variant) => {
  const ready = prepareVariant(variant, values.script ? path.resolve(values.script) : EMPTY_APP);
  return ready.id === 'none' || ready.id === 'otel' ? ready : { ...ready, env: { ...ready.env, ...probeEnv } };
});

/** One run of one variant: wall ms from spawn to exit, and what the child reported at exit. */
function runOnce(variant) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [...variant.preload, '--require', REPORTER, variant.script], {
      cwd: variant.root,
      env: variant.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const line = err.split('\n').find((l) => l.startsWith('{"benchExit"'));
      if (code !== 0 || !line) return reject(new Error(`${variant.label}: exit ${code}\n${err}`));
      const { cpuUs, files } = JSON.parse(line).benchExit;
      // A preload that failed to start prints why; its figures would silently be those of bare Node.
      if (/\[probe\]/.test(err)) return reject(new Error(`${variant.label}: ${err}`));
      resolve({ wallMs, cpuMs: cpuUs / 1000, files });
    });
  });
}

const rounds = Number(values.rounds);
const loadBefore = loadAverage();
console.log(`start-up of ${values.script ? path.basename(values.script) : 'an empty script'}: ${rounds} rounds, variants in a rotated order; ${machine()}`);
console.log(`load average at the start: ${loadBefore}${values.env.length ? `; Probe variants with ${values.env.join(' ')}` : ''}`);
const results = new Map(prepared.map((v) => [v.id, []]));
// One warm-up round (disk cache), not counted.
for (const variant of prepared) await runOnce(variant);
for (let round = 0; round < rounds; round++) {
  for (const variant of rotated(prepared, round)) results.get(variant.id).push(await runOnce(variant));
}
const loadAfter = loadAverage();

const min = (xs) => Math.min(...xs);
const stats = new Map(
  prepared.map((v) => {
    const runs = results.get(v.id);
    const wall = runs.map((r) => r.wallMs);
    const cpu = runs.map((r) => r.cpuMs);
    return [
      v.id,
      { label: v.label, wallMin: min(wall), wallMedian: median(wall), cpuMin: min(cpu), cpuMedian: median(cpu), files: median(runs.map((r) => r.files)) },
    ];
  }),
);
const base = stats.get('otel');
const bare = stats.get('none');
const fmt = (x) => x.toFixed(1);
const vs = (x, of) => (of ? `${(x / of).toFixed(2)}× / ${x - of >= 0 ? '+' : ''}${fmt(x - of)}` : '-');
console.log(
  '\n' +
    table(
      ['variant', 'wall min ms', 'wall median ms', 'CPU min ms', 'CPU median ms', 'files loaded', 'wall median vs plain OTel', 'CPU median vs plain OTel'],
      [...stats.values()].map((s) => [
        s.label,
        fmt(s.wallMin),
        fmt(s.wallMedian),
        fmt(s.cpuMin),
        fmt(s.cpuMedian),
        s.files,
        base && s !== base ? vs(s.wallMedian, base.wallMedian) : '-',
        base && s !== base ? vs(s.cpuMedian, base.cpuMedian) : '-',
      ]),
    ),
);
for (const [id, s] of stats) {
  if (id === 'none' || !bare) continue;
  console.log(`${s.label}: adds ${fmt(s.wallMedian - bare.wallMedian)} ms wall (median) and ${fmt(s.cpuMedian - bare.cpuMedian)} ms CPU to bare Node`);
}
console.log(`load average at the end: ${loadAfter}`);
