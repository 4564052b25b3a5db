#!/usr/bin/env node
// Benchmark: µs per keep-alive loopback call, `fetch` and `node:http`, for the four variants run side by
// side: each round starts every variant in its own process (rotating the order), medians over the rounds.
// Usage: node bench/calls.mjs [--rounds 9] [--calls 2000] [--warm 500] [--profile] [--diagnose] [--try DIST_DIR]
import { parseArgs } from 'node:util';
import path from 'node:path';
import { readdirSync } from 'node:fs';
import {
  BENCH_DIR,
  VARIANTS,
  DIAGNOSTIC_VARIANTS,
  tryVariant,
  prepareVariant,
  startChild,
  startUpstream,
  median,
  rotated,
  table,
  machine,
  ratio,
  loadAverage,
} from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    calls: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '500' },
    profile: { type: 'boolean', default: false },
    diagnose: { type: 'boolean', default: false },
    try: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const app = path.join(BENCH_DIR, 'calls-app.mjs');
const variants = [...VARIANTS, ...(values.diagnose ? DIAGNOSTIC_VARIANTS : []), ...(values.try ? [tryVariant(values.try)] : [])];
const prepared = variants.map((v) => prepareVariant(v, app));
const upstream = await startUpstream();
const results = Object.fromEntries(variants.map((v) => [v.id, { fetch: [], http: [], fetchCpu: [], httpCpu: [] }]));

console.log(`load average at the start: ${loadAverage()}`);
console.log(`calls: ${rounds} rounds × ${values.calls} calls per client (after ${values.warm} warm-up), ${machine()}`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotated(prepared, round)) {
      const flags = values.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(variant.root, 'prof')] : [];
      const env = { ...variant.env, BENCH_ORDER: round % 2 ? 'http' : 'fetch' };
      const run = startChild({ ...variant, env }, [upstream.url, values.calls, values.warm], { flags, ready: /^result (.*)$/m });
      const [, json] = await run.match;
      await run.done;
      const r = JSON.parse(json);
      // A baseline that made no span measures nothing (an ESM import that bypassed the instrumentation).
      if (variant.id === 'otel' && !(r.spans > 0)) throw new Error(`the plain OTel baseline exported no span (${r.spans}): it did not instrument the calls`);
      for (const client of ['fetch', 'http']) {
        results[variant.id][client].push(r[client].wall);
        results[variant.id][`${client}Cpu`].push(r[client].cpu);
      }
    }
    process.stdout.write(`  round ${round + 1}/${rounds} done\n`);
  }
} finally {
  upstream.stop();
}

const med = Object.fromEntries(variants.map((v) => [v.id, Object.fromEntries(Object.entries(results[v.id]).map(([k, xs]) => [k, median(xs)]))]));
const rows = [];
for (const client of ['fetch', 'http']) {
  for (const v of variants) {
    const wall = med[v.id][client];
    const cpu = med[v.id][`${client}Cpu`];
    const others = v.id === 'none' ? ['-', '-'] : [ratio(cpu, med.none[`${client}Cpu`]), v.id === 'otel' ? '-' : ratio(cpu, med.otel[`${client}Cpu`])];
    rows.push([`${client === 'http' ? 'node:http' : 'fetch'} ${v.label}`, wall.toFixed(0), ratio(wall, med.none[client]), cpu.toFixed(0), ...others]);
  }
}
console.log(`\nload average at the end: ${loadAverage()}`);
console.log('\n' + table(['client / variant', 'wall µs/call', 'wall vs none', 'CPU µs/call', 'CPU vs none', 'CPU vs OTel'], rows));
if (values.profile) {
  for (const v of prepared) {
    const dir = path.join(v.root, 'prof');
    try {
      console.log(
        `profiles ${v.id}: ${readdirSync(dir)
          .map((f) => path.join(dir, f))
          .join(' ')}`,
      );
    } catch {
      // no profile for this variant
    }
  }
}
