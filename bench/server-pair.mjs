#!/usr/bin/env node
// Benchmark: the web server of bench/server.mjs, two variants at the same time. Each round starts both
// apps, loads each with its own autocannon for a fixed number of requests, and compares their CPU time per
// request over the same seconds. Why: on a shared VM the machine's speed drifts by ±20% from one run to the
// next, which hides a 5% change between runs made one after the other; two apps measured side by side see
// the same drift, so their ratio holds still. Prints each round's ratio and the median.
// Usage: node bench/server-pair.mjs [--a otel] [--b probe] [--rounds 6] [--requests 3000] [--warm 1000] [--connections 8] [--answer 50k]
//   --answer: the upstream's JSON answer size (default 60 B; pages of records as in bench/peers.mjs: 5k, 50k, 500k)
//   a variant is none | otel | probe | bodies | nostore | noorigin | sampled (sampling.rate 0.1) | unsampled (rate 0) | floor | floor-rename |
//   floor-stack | floor-sampled (bench/floor-preload.cjs), or a folder holding a build of Probe (a dist/ copy)
import { parseArgs } from 'node:util';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { BENCH_DIR, VARIANTS, DIAGNOSTIC_VARIANTS, FLOOR_VARIANTS, tryVariant, prepareVariant, startUpstream, median, machine } from './lib/common.mjs';
import { runPair } from './lib/pair.mjs';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'otel' },
    b: { type: 'string', default: 'probe' },
    rounds: { type: 'string', default: '6' },
    requests: { type: 'string', default: '3000' },
    warm: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '8' },
    answer: { type: 'string', default: '0' },
  },
});
const app = path.join(BENCH_DIR, 'server-app.mjs');
const variantOf = (spec) => {
  const known = [...VARIANTS, ...DIAGNOSTIC_VARIANTS, ...FLOOR_VARIANTS].find((v) => v.id === spec);
  if (known) return known;
  if (existsSync(path.join(spec, 'register.js'))) return tryVariant(spec);
  throw new Error(
    `unknown variant ${spec}: one of ${[...VARIANTS, ...DIAGNOSTIC_VARIANTS, ...FLOOR_VARIANTS].map((v) => v.id).join(', ')}, or a folder with register.js`,
  );
};
const pair = [variantOf(values.a), variantOf(values.b)].map((v) => prepareVariant(v, app));
const answer = /^(\d+)([km]?)$/i.exec(values.answer);
if (!answer) throw new Error(`--answer: a size such as 60, 5k or 50k, not ${values.answer}`);
const upstream = await startUpstream({ answerBytes: Number(answer[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[answer[2].toLowerCase()] });
console.log(
  `server, paired: A = ${pair[0].label}, B = ${pair[1].label}; ${values.rounds} rounds × ${values.requests} requests each at ${values.connections} connections each; ${machine()}`,
);
let outcome;
try {
  const options = { rounds: Number(values.rounds), requests: Number(values.requests), warm: Number(values.warm), connections: Number(values.connections) };
  outcome = await runPair(pair, upstream, options, (line) => console.log(line));
} finally {
  upstream.stop();
}
const { ratios, cpus } = outcome;
const sorted = [...ratios].sort((x, y) => x - y);
console.log(`\nserver CPU per request, median: A ${median(cpus[0]).toFixed(0)} µs, B ${median(cpus[1]).toFixed(0)} µs`);
console.log(`B/A median ${median(ratios).toFixed(3)} (range ${sorted[0].toFixed(3)}–${sorted.at(-1).toFixed(3)})`);
