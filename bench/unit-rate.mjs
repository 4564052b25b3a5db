#!/usr/bin/env node
// Benchmark: what a recorded unit costs as a function of how often units arrive, not of sampling. The web server of
// bench/peers.mjs (bench/peers-app.cjs: 3 calls per request) under plain OTel and under Probe at several sampling
// rates, each driven at a fixed request rate well below what the 2 cores sustain (autocannon's overallRate), so no
// thread waits for a core and the app's event-loop delays are its own work's, not a queue's. Prints CPU µs per
// request by thread (Linux, /proc/<pid>/task/*/stat, 10 ms ticks): the app's main thread, the threads it had when it
// started (V8's platform workers: GC helpers and the optimising compiler; libuv's pool, idle here) and the threads
// started since (the store's thread), then each run's cost per recorded unit over rate 0 at the same request rate
// (recorded units estimated as requests × rate: the ratio sampler decides by trace id), and the app's event-loop delay
// (`monitorEventLoopDelay`: median p99 and worst max over the rounds; no stall caused by Probe above 50 ms).
// Why: the peers benchmark read a recorded request at sampling.rate 0.1 as costing about four times what
// one costs at rate 1. `1@20` against `0.1@200` (the same 20 recorded units a second) tells a sampling path from the
// arrival rate; `1@200` is rate 1 at the same request rate as `0.1@200`.
// Usage: node bench/unit-rate.mjs [--answer 60,50k] [--runs otel@20,0@20,1@20,otel@200,0@200,0.1@200,1@200] [--seconds 15] [--rounds 2]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_DIR, OTEL_PRELOAD, machine, median, prepareVariant, startChild, startUpstream, loadAverage, table } from './lib/common.mjs';
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({
  options: {
    answer: { type: 'string', default: '60,50k' },
    runs: { type: 'string', default: 'otel@20,0@20,1@20,otel@200,0@200,0.1@200,1@200' },
    seconds: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '2' },
  },
});
const sizes = values.answer.split(',').map((spec) => {
  const m = /^(\d+)([km]?)$/i.exec(spec.trim());
  if (!m) throw new Error(`--answer: a size such as 60, 5k or 50k, not ${spec}`);
  return Number(m[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
});
const runs = values.runs.split(',').map((spec) => {
  const m = /^([\d.]+|otel)@(\d+)$/.exec(spec.trim());
  if (!m || Number(m[1]) > 1) throw new Error(`--runs: items such as 0.1@200 (sampling rate @ requests per second) or otel@200, not ${spec}`);
  return { id: spec.trim(), otel: m[1] === 'otel', rate: m[1] === 'otel' ? NaN : Number(m[1]), perSecond: Number(m[2]) };
});
if (!runs.some((r) => r.rate === 0)) throw new Error('--runs: include a rate 0 run (the baseline each recorded unit is measured over)');
const seconds = Number(values.seconds);
const app = path.join(BENCH_DIR, 'peers-app.cjs');

/** The thread ids of `pid` now. */
const threadIds = (pid) => readdirSync(`/proc/${pid}/task`).map(Number);

/**
 * CPU ms of `pid`'s main thread, of the threads it had at start (`early`: V8's platform workers, which run GC and
 * the optimising compiler, and libuv's pool) and of the threads started since (the store's thread).
 */
function cpuByRole(pid, early) {
  const out = { main: 0, platform: 0, other: 0 };
  for (const tid of threadIds(pid)) {
    let ms = 0;
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ms = (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      continue; // ended meanwhile
    }
    if (tid === pid) out.main += ms;
    else if (early.has(tid)) out.platform += ms;
    else out.other += ms;
  }
  return out;
}

console.log(`unit-rate: ${runs.map((r) => r.id).join(', ')} (sampling rate @ requests/s), ${values.rounds} rounds × ${seconds} s; ${machine()}`);
console.log(`load average at the start: ${loadAverage()}`);
for (const bytes of sizes) {
  const upstream = await startUpstream({ answerBytes: bytes });
  const results = Object.fromEntries(runs.map((r) => [r.id, { main: [], platform: [], other: [], requests: [], delayMax: [], delayP99: [] }]));
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const r of runs) {
        const variant = r.otel
          ? prepareVariant({ id: 'otel', preloadFile: OTEL_PRELOAD }, app)
          : prepareVariant({ id: `rate-${r.rate}`, probe: true, env: { PROBE_SAMPLE_RATE: String(r.rate) } }, app);
        const run = startChild(variant, [upstream.url], { ipc: true });
        try {
          const port = (await run.match)[1];
          const early = new Set(threadIds(run.child.pid));
          const url = `http://127.0.0.1:${port}/checkout`;
          await autocannon({ url, connections: 8, amount: 500 }); // warm-up, unmeasured
          await new Promise((resolve) => setTimeout(resolve, 1000));
          await ask(run.child, 'cpu'); // restarts the app's event-loop delay histogram
          const before = cpuByRole(run.child.pid, early);
          const load = await autocannon({ url, connections: 4, overallRate: r.perSecond, duration: seconds });
          const after = cpuByRole(run.child.pid, early);
          const { delay } = await ask(run.child, 'cpu');
          if (load.errors || load.non2xx) throw new Error(`${r.id}: ${load.errors} errors, ${load.non2xx} non-2xx answers`);
          const n = load.requests.total;
          for (const role of ['main', 'platform', 'other']) results[r.id][role].push(((after[role] - before[role]) * 1000) / n);
          results[r.id].requests.push(n);
          results[r.id].delayMax.push(delay.max);
          results[r.id].delayP99.push(delay.p99);
        } finally {
          run.child.kill('SIGTERM');
          await run.done;
        }
      }
    }
  } finally {
    upstream.stop();
  }
  const fig = Object.fromEntries(
    runs.map((r) => {
      const x = results[r.id];
      const main = median(x.main);
      const platform = median(x.platform);
      const other = median(x.other);
      const delay = { max: Math.max(...x.delayMax), p99: median(x.delayP99) };
      return [r.id, { main, platform, other, total: main + platform + other, requests: median(x.requests), delay }];
    }),
  );
  const baseAt = (perSecond) => fig[runs.find((r) => r.rate === 0 && r.perSecond === perSecond)?.id]?.total;
  const otelAt = (perSecond) => fig[runs.find((r) => r.otel && r.perSecond === perSecond)?.id]?.total;
  console.log(`\nanswers of ${bytes} B (3 per request), medians of ${values.rounds} rounds, load average ${loadAverage()}:`);
  console.log(
    table(
      [
        'rate @ req/s',
        'requests',
        'main µs/req',
        'V8 workers and pool µs/req',
        'store thread µs/req',
        'total µs/req',
        'vs plain OTel',
        'store µs per recorded unit',
        'over rate 0, µs per recorded unit',
        'loop delay p99 ms',
        'loop delay max ms',
      ],
      runs.map((r) => {
        const f = fig[r.id];
        const base = baseAt(r.perSecond);
        return [
          r.id,
          f.requests,
          f.main.toFixed(0),
          f.platform.toFixed(0),
          f.other.toFixed(0),
          f.total.toFixed(0),
          !r.otel && otelAt(r.perSecond) ? `${(f.total / otelAt(r.perSecond)).toFixed(2)}×` : '-',
          r.rate > 0 ? (f.other / r.rate).toFixed(0) : '-',
          r.rate > 0 && base !== undefined ? ((f.total - base) / r.rate).toFixed(0) : '-',
          f.delay.p99.toFixed(1),
          f.delay.max.toFixed(1),
        ];
      }),
    ),
  );
}
console.log(`\nload average at the end: ${loadAverage()}`);
