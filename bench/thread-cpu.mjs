#!/usr/bin/env node
// Benchmark: the web server of bench/server.mjs under each variant at the same time, with its CPU split by
// thread (Linux: /proc/<pid>/task/*/stat, in clock ticks). Why: process CPU per request does not say whether
// Probe's cost is on the app's thread, the store's thread or V8's helper threads (GC, compiler); this does.
// The main thread is `main`; other threads are listed by name and thread id (Node 20 names them all `node`:
// the first four after the main one are V8's platform workers, the store's thread starts later).
// Usage: node bench/thread-cpu.mjs [--variants otel,sampled,probe] [--answer 60] [--requests 3000] [--rounds 2]
//   a variant is one of bench/lib/common.mjs's ids, or a folder holding a build of Probe (a dist/ copy)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_DIR, VARIANTS, DIAGNOSTIC_VARIANTS, machine, tryVariant, prepareVariant, startChild, startUpstream, loadAverage } from './lib/common.mjs';

const { values } = parseArgs({
  options: {
    variants: { type: 'string', default: 'otel,sampled' },
    answer: { type: 'string', default: '60' },
    requests: { type: 'string', default: '3000' },
    warm: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
  },
});
const size = /^(\d+)([km]?)$/i.exec(values.answer);
if (!size) throw new Error(`--answer: a size such as 60, 5k or 50k, not ${values.answer}`);
const bytes = Number(size[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[size[2].toLowerCase()];
const variantOf = (spec) => [...VARIANTS, ...DIAGNOSTIC_VARIANTS].find((v) => v.id === spec) ?? tryVariant(spec);
const app = path.join(BENCH_DIR, 'server-app.mjs');
const variants = values.variants.split(',').map((spec) => prepareVariant(variantOf(spec), app));
const TICKS_PER_SECOND = 100;

/** CPU seconds of each thread of `pid`, keyed `main` or `<name>#<tid>`. */
function threadCpu(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[tid === String(pid) ? 'main' : `${name}#${tid}`] = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const upstream = await startUpstream({ answerBytes: bytes });
console.log(`server, CPU µs per request by thread; answers of ${bytes} B; ${values.rounds} rounds × ${values.requests} requests; ${machine()}`);
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    const runs = [];
    for (const variant of variants) {
      const run = startChild(variant, [upstream.url], { ipc: true });
      runs.push({ run, port: (await run.match)[1] });
    }
    const load = (port, amount) => autocannon({ url: `http://127.0.0.1:${port}/api/orders`, connections: 8, amount });
    await Promise.all(runs.map(({ port }) => load(port, Number(values.warm))));
    const before = runs.map(({ run }) => threadCpu(run.child.pid));
    const results = await Promise.all(runs.map(({ port }) => load(port, Number(values.requests))));
    const after = runs.map(({ run }) => threadCpu(run.child.pid));
    for (const { run } of runs) run.child.kill('SIGTERM');
    await Promise.all(runs.map(({ run }) => run.done));
    console.log(`\nround ${round + 1} (load average ${loadAverage()})`);
    runs.forEach((_, i) => {
      const per = (seconds) => ((seconds * 1e6) / Math.max(1, results[i].requests.total)).toFixed(0);
      const rows = Object.entries(after[i])
        .map(([key, seconds]) => [key, seconds - (before[i][key] ?? 0)])
        .filter(([, seconds]) => seconds > 0);
      const total = rows.reduce((sum, [, seconds]) => sum + seconds, 0);
      console.log(`  ${variants[i].label}: ${per(total)} µs/req; ${rows.map(([key, seconds]) => `${key} ${per(seconds)}`).join(', ')}`);
    });
  }
} finally {
  upstream.stop();
}
