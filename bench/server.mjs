#!/usr/bin/env node
// Benchmark: a web server under fixed concurrent load (autocannon, in this process) whose handler makes 3
// outgoing calls to an upstream in a third process. Four variants side by side, rotating order per round;
// medians of requests/s, p50/p99 latency and the server's CPU time per request.
// Usage: node bench/server.mjs [--rounds 5] [--seconds 6] [--connections 16] [--warm 2] [--profile] [--diagnose] [--try DIST_DIR]
import { parseArgs } from 'node:util';
import path from 'node:path';
import os from 'node:os';
import autocannon from 'autocannon';
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
} from './lib/common.mjs';
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '16' },
    warm: { type: 'string', default: '2' },
    profile: { type: 'boolean', default: false },
    diagnose: { type: 'boolean', default: false },
    try: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const app = path.join(BENCH_DIR, 'server-app.mjs');
const variants = [...VARIANTS, ...(values.diagnose ? DIAGNOSTIC_VARIANTS : []), ...(values.try ? [tryVariant(values.try)] : [])];
const prepared = variants.map((v) => prepareVariant(v, app));
const upstream = await startUpstream();
const results = Object.fromEntries(variants.map((v) => [v.id, { rps: [], p50: [], p99: [], cpu: [], errors: 0 }]));
const load = (url, duration) => autocannon({ url, connections: Number(values.connections), duration, pipelining: 1 });

console.log(
  `load average at the start: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(`server: ${rounds} rounds × ${values.seconds}s at ${values.connections} connections (after ${values.warm}s warm-up), ${machine()}`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotated(prepared, round)) {
      const flags = values.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(variant.root, 'prof')] : [];
      const run = startChild(variant, [upstream.url], { ipc: true, flags });
      const [, port] = await run.match;
      const url = `http://127.0.0.1:${port}/api/orders`;
      await load(url, Number(values.warm));
      const before = (await ask(run.child, 'cpu')).cpu;
      const r = await load(url, Number(values.seconds));
      const after = (await ask(run.child, 'cpu')).cpu;
      if (variant.id === 'otel') {
        const { spans } = await ask(run.child, 'spans');
        if (!(spans > 0)) throw new Error(`the plain OTel baseline exported no span (${spans}): it did not instrument the server`);
      }
      run.child.kill('SIGTERM');
      await run.done;
      const cpu = (after.user - before.user + after.system - before.system) / Math.max(1, r.requests.total);
      const out = results[variant.id];
      out.rps.push(r.requests.average);
      out.p50.push(r.latency.p50);
      out.p99.push(r.latency.p99);
      out.cpu.push(cpu);
      out.errors += r.errors + r.non2xx;
    }
    process.stdout.write(`  round ${round + 1}/${rounds} done\n`);
  }
} finally {
  upstream.stop();
}

console.log(
  `\nload average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const med = Object.fromEntries(variants.map((v) => [v.id, Object.fromEntries(['rps', 'p50', 'p99', 'cpu'].map((k) => [k, median(results[v.id][k])]))]));
const rows = variants.map((v) => {
  const m = med[v.id];
  return [
    v.label,
    m.rps.toFixed(0),
    v.id === 'none' ? '-' : ratio(m.rps, med.none.rps),
    ['none', 'otel'].includes(v.id) ? '-' : ratio(m.rps, med.otel.rps),
    m.p50.toFixed(1),
    m.p99.toFixed(1),
    m.cpu.toFixed(0),
    v.id === 'none' ? '-' : ratio(m.cpu, med.none.cpu),
    ['none', 'otel'].includes(v.id) ? '-' : ratio(m.cpu, med.otel.cpu),
    results[v.id].errors,
  ];
});
console.log('\n' + table(['variant', 'req/s', 'vs none', 'vs OTel', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'CPU vs none', 'CPU vs OTel', 'errors'], rows));
