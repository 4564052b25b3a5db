#!/usr/bin/env node
// Benchmark: the web server of bench/server.mjs, two variants at the same time. Each round starts both
// apps, loads each with its own autocannon for a fixed number of requests, and compares their CPU time per
// request over the same seconds. Why: on a shared VM the machine's speed drifts by ±20% from one run to the
// next, which hides a 5% change between runs made one after the other; two apps measured side by side see
// the same drift, so their ratio holds still. Prints each round's ratio and the median.
// Usage: node bench/server-pair.mjs [--a otel] [--b probe] [--rounds 6] [--requests 3000] [--warm 1000] [--connections 8]
//   a variant is none | otel | probe | bodies | nostore | noorigin, or a folder holding a build of Probe (a dist/ copy)
import { parseArgs } from 'node:util';
import path from 'node:path';
import { existsSync } from 'node:fs';
import autocannon from 'autocannon';
import { BENCH_DIR, VARIANTS, DIAGNOSTIC_VARIANTS, tryVariant, prepareVariant, startChild, startUpstream, median, machine } from './lib/common.mjs';
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'otel' },
    b: { type: 'string', default: 'probe' },
    rounds: { type: 'string', default: '6' },
    requests: { type: 'string', default: '3000' },
    warm: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '8' },
  },
});
const app = path.join(BENCH_DIR, 'server-app.mjs');
const variantOf = (spec) => {
  const known = [...VARIANTS, ...DIAGNOSTIC_VARIANTS].find((v) => v.id === spec);
  if (known) return known;
  if (existsSync(path.join(spec, 'register.js'))) return tryVariant(spec);
  throw new Error(`unknown variant ${spec}: one of ${[...VARIANTS, ...DIAGNOSTIC_VARIANTS].map((v) => v.id).join(', ')}, or a folder with register.js`);
};
const pair = [variantOf(values.a), variantOf(values.b)].map((v) => prepareVariant(v, app));
const load = (port, amount) => autocannon({ url: `http://127.0.0.1:${port}/api/orders`, connections: Number(values.connections), amount, pipelining: 1 });
const upstream = await startUpstream();
const ratios = [];
const cpus = [[], []];
console.log(`server, paired: A = ${pair[0].label}, B = ${pair[1].label}; ${values.rounds} rounds × ${values.requests} requests each at ${values.connections} connections each; ${machine()}`);
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternate which app starts first.
    const order = round % 2 ? [1, 0] : [0, 1];
    const runs = [];
    for (const i of order) {
      const run = startChild(pair[i], [upstream.url], { ipc: true });
      runs[i] = { run, port: (await run.match)[1] };
    }
    await Promise.all(runs.map(({ port }) => load(port, Number(values.warm))));
    const before = await Promise.all(runs.map(({ run }) => ask(run.child, 'cpu')));
    const results = await Promise.all(runs.map(({ port }) => load(port, Number(values.requests))));
    const after = await Promise.all(runs.map(({ run }) => ask(run.child, 'cpu')));
    const per = runs.map((_, i) => (after[i].cpu.user - before[i].cpu.user + after[i].cpu.system - before[i].cpu.system) / Math.max(1, results[i].requests.total));
    for (const [i, r] of results.entries()) if (r.errors + r.non2xx) throw new Error(`${pair[i].label}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    for (const { run } of runs) run.child.kill('SIGTERM');
    await Promise.all(runs.map(({ run }) => run.done));
    per.forEach((cpu, i) => cpus[i].push(cpu));
    ratios.push(per[1] / per[0]);
    console.log(`  round ${round + 1}: A ${per[0].toFixed(0)} µs/req, B ${per[1].toFixed(0)} µs/req, B/A ${(per[1] / per[0]).toFixed(3)}`);
  }
} finally {
  upstream.stop();
}
const sorted = [...ratios].sort((x, y) => x - y);
console.log(`\nserver CPU per request, median: A ${median(cpus[0]).toFixed(0)} µs, B ${median(cpus[1]).toFixed(0)} µs`);
console.log(`B/A median ${median(ratios).toFixed(3)} (range ${sorted[0].toFixed(3)}–${sorted.at(-1).toFixed(3)})`);
