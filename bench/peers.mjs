#!/usr/bin/env node
// Benchmark: Probe beside what a user would run instead, in one run. A node:http server (bench/peers-app.cjs)
// whose handler makes 3 calls (fetch GET JSON, node:http GET JSON, fetch POST JSON with an authorization
// header) under a fixed concurrent load (autocannon, in this process), for six variants whose order rotates
// per round: none; plain OTel (http + undici instrumentations, batch processor, an exporter that drops);
// OTel exporting OTLP/HTTP protobuf to a local sink; @sentry/node with tracesSampleRate 1 sending to a local
// sink; Probe with defaults; Probe sampling 10%. The upstream answers each call with a JSON body of each size
// of --answer (60 B, then pages of records: bench/lib/answer.mjs). Prints, per answer size, the server's own
// CPU µs per request (its process.cpuUsage()), its main thread's busy µs per request (the active time of
// performance.eventLoopUtilization(): wall time, which grows while the thread waits for a core) and its main
// thread's own CPU µs per request (Linux, /proc/thread-self/stat: 10 ms ticks, so a round needs thousands of
// requests), p50 and p99 latency, peak RSS, the app's event-loop delay under the load
// (monitorEventLoopDelay: median p99 and the worst max over the rounds; the stall target is 50 ms), medians
// and ratios, and fails when a peer did not really export (no spans counted, nothing reached its sink) or Probe
// stored nothing.
// The floor variants (bench/floor-preload.cjs) are plain OTel plus the least a tool keeping every call's bodies must
// do (copy the bytes on the app's thread; on one worker thread decode, one masking pass, one serialisation, one file per
// request, 200 kept): `floor`, `floor-rename` (temp file then rename, as Probe's file store), `floor-stack` (+ the
// caller's stack per call), `floor-sampled` (the last, keeping 1 request in 10); each proves its work by the files written.
// With --variants none,otel,probe only those run (ids: none otel otlp sentry floor floor-rename floor-stack floor-sampled
// probe sampled try, and diagnostics run only when named: otelarena2 arena2 otelsemi4 semi4, see below); with --memory each
// round also prints where the app's memory went (peaks over the measured load: RSS, the app thread's heap, external
// and ArrayBuffer bytes; for Probe the bytes in flight to the store's thread, the units it had not finished, the
// heap it reports, and the units dropped; on Linux the RSS split into anonymous and file pages, and the anonymous
// pages in glibc's malloc arenas: the main one, [heap], and those of other threads, 64 MB reservations).
// Usage: node bench/peers.mjs [--answer 60,5k,50k,500k] [--rounds 5] [--seconds 6] [--connections 16] [--warm 2] [--try DIST_DIR]
//   [--variants ids] [--memory]
import { parseArgs } from 'node:util';
import http from 'node:http';
import path from 'node:path';
import { readdirSync } from 'node:fs';
import autocannon from 'autocannon';
import {
  BENCH_DIR,
  FLOOR_VARIANTS,
  OTEL_PRELOAD,
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
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '16' },
    warm: { type: 'string', default: '2' },
    try: { type: 'string' },
    answer: { type: 'string', default: '60,5k,50k,500k' },
    variants: { type: 'string' },
    memory: { type: 'boolean', default: false },
  },
});
/** Answer sizes in bytes: `60`, `5k` (5 × 1024), `1m`. */
const sizes = values.answer.split(',').map((word) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)b?$/i.exec(word.trim());
  if (!m) throw new Error(`--answer: cannot read ${JSON.stringify(word)} (sizes like 60,5k,50k,500k)`);
  return Math.round(Number(m[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()]);
});
const sizeLabel = (bytes) => (bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`);
const rounds = Number(values.rounds);
const app = path.join(BENCH_DIR, 'peers-app.cjs');

/** What each peer's backend receives: requests and bytes per path, counted by a loopback sink. */
function startSink() {
  const received = new Map();
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c) => (bytes += c.length));
    req.on('end', () => {
      const key = req.url.split('?')[0];
      const seen = received.get(key) ?? { requests: 0, bytes: 0 };
      received.set(key, { requests: seen.requests + 1, bytes: seen.bytes + bytes });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, received, close: () => server.close() })));
}

const sink = await startSink();
const allVariants = [
  { id: 'none', label: 'no instrumentation' },
  { id: 'otel', label: 'plain OTel (exporter drops)', proof: 'spans' },
  {
    id: 'otlp',
    label: 'OTel exporting OTLP/HTTP protobuf',
    preloadFile: path.join(BENCH_DIR, 'otel-otlp-preload.cjs'),
    env: { BENCH_OTLP_URL: `http://127.0.0.1:${sink.port}/v1/traces` },
    proof: 'sink:/v1/traces',
  },
  {
    id: 'sentry',
    label: 'Sentry 10, tracesSampleRate 1',
    preloadFile: path.join(BENCH_DIR, 'sentry-preload.cjs'),
    env: { BENCH_SENTRY_DSN: `http://public@127.0.0.1:${sink.port}/1` },
    proof: 'sink:/api/1/envelope/',
  },
  // The floor of keeping bodies (bench/floor-preload.cjs): plain OTel plus the least a tool keeping every call's bodies must do.
  ...FLOOR_VARIANTS,
  { id: 'probe', label: 'Probe, defaults', proof: 'captures' },
  { id: 'sampled', label: 'Probe, sampling.rate 0.1', probe: true, env: { PROBE_SAMPLE_RATE: '0.1' }, proof: 'captures' },
  ...(values.try ? [{ ...tryVariant(values.try), proof: 'captures' }] : []),
  // Diagnostic of sampling's fixed cost, only when named: every request left out, so what remains is what
  // Probe costs a request it does not record (units, the sampling decision, the lenses asking).
  { id: 'sampled0', label: 'Probe, sampling.rate 0 (nothing recorded)', probe: true, env: { PROBE_SAMPLE_RATE: '0' }, only: true },
  // Diagnostics of peak RSS, only when named in --variants: glibc's malloc arenas (each thread that
  // allocates gets one of its own, up to 8 per core; MALLOC_ARENA_MAX=2 caps them) and the app thread's young
  // generation (V8 grows its semi-spaces up to 16 MB each under a high allocation rate).
  { id: 'otelarena2', label: 'plain OTel, MALLOC_ARENA_MAX=2', preloadFile: OTEL_PRELOAD, env: { MALLOC_ARENA_MAX: '2' }, proof: 'spans', only: true },
  { id: 'arena2', label: 'Probe, MALLOC_ARENA_MAX=2', probe: true, env: { MALLOC_ARENA_MAX: '2' }, proof: 'captures', only: true },
  { id: 'otelsemi4', label: 'plain OTel, --max-semi-space-size=4', preloadFile: OTEL_PRELOAD, flags: ['--max-semi-space-size=4'], proof: 'spans', only: true },
  { id: 'semi4', label: 'Probe, --max-semi-space-size=4', probe: true, flags: ['--max-semi-space-size=4'], proof: 'captures', only: true },
];
const wanted = values.variants?.split(',').map((id) => id.trim());
const variants = wanted ? allVariants.filter((v) => wanted.includes(v.id)) : allVariants.filter((v) => !v.only);
if (!variants.length) throw new Error(`--variants: none of ${values.variants} (ids: ${allVariants.map((v) => v.id).join(' ')})`);
const MB = (bytes) => (bytes / (1024 * 1024)).toFixed(0);
const prepared = variants.map((v) => prepareVariant(v, app));
/** Per answer size, per variant: each round's figures. */
const results = Object.fromEntries(
  sizes.map((size) => [
    size,
    Object.fromEntries(
      variants.map((v) => [v.id, { rps: [], cpu: [], busy: [], threadCpu: [], p50: [], p99: [], rss: [], stallP99: [], stallMax: [], errors: 0 }]),
    ),
  ]),
);
const spans = Object.fromEntries(variants.map((v) => [v.id, 0]));
/** Per floor variant: what its thread wrote, summed over the rounds (requests kept, files, bytes, faults). */
const floorWork = Object.fromEntries(variants.map((v) => [v.id, { requests: 0, files: 0, bytes: 0, faults: 0, dir: null }]));
const load = (url, duration) => autocannon({ url, connections: Number(values.connections), duration, pipelining: 1 });
const captureFiles = (root) => {
  try {
    return readdirSync(path.join(root, '.probe', 'captures')).filter((f) => f.endsWith('.json')).length;
  } catch {
    return 0;
  }
};

console.log(`load average at the start: ${loadAverage()}`);
console.log(
  `peers: answers of ${sizes.map(sizeLabel).join(', ')}; ${rounds} rounds × ${values.seconds}s at ${values.connections} connections (after ${values.warm}s warm-up), ${machine()}`,
);
let upstream = null;
try {
  for (const size of sizes) {
    upstream = await startUpstream({ answerBytes: size });
    for (let round = 0; round < rounds; round++) {
      for (const variant of rotated(prepared, round)) {
        const run = startChild(values.memory ? { ...variant, env: { ...variant.env, BENCH_MEMORY: '1' } } : variant, [upstream.url], {
          ipc: true,
          flags: variant.flags ?? [],
        });
        const [, port] = await run.match;
        const url = `http://127.0.0.1:${port}/checkout`;
        await load(url, Number(values.warm));
        const before = await ask(run.child, 'cpu');
        const r = await load(url, Number(values.seconds));
        const after = await ask(run.child, 'cpu');
        const counted = await ask(run.child, 'spans');
        if (values.memory) {
          const { memory: m } = await ask(run.child, 'memory');
          const extra = Object.entries(m)
            .filter(([key]) => !['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers', 'dropped', 'lagUnits', 'backlog'].includes(key))
            .map(([key, value]) => ` ${key} ${MB(value)}`)
            .join('');
          const store = 'backlog' in m ? ` backlog ${MB(m.backlog)} lag ${m.lagUnits} units, dropped ${m.dropped}` : '';
          console.log(
            `  ${variant.id}: peak MB: rss ${MB(m.rss)} heap ${MB(m.heapUsed)}/${MB(m.heapTotal)} external ${MB(m.external)} arrayBuffers ${MB(m.arrayBuffers)}${extra}${store} (load ${loadAverage()})`,
          );
        }
        run.child.kill('SIGTERM');
        await run.done;
        const out = results[size][variant.id];
        const requests = Math.max(1, r.requests.total);
        out.rps.push(r.requests.average);
        out.cpu.push((after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / requests);
        // ELU's `active` is in ms: the main thread's time not idle in the event loop.
        out.busy.push(((after.elu.active - before.elu.active) * 1000) / requests);
        if (after.threadCpu !== null) out.threadCpu.push((after.threadCpu - before.threadCpu) / requests);
        out.p50.push(r.latency.p50);
        out.p99.push(r.latency.p99);
        out.rss.push(after.maxRssKb / 1024);
        // monitorEventLoopDelay over the measured load only (the app restarts its histogram at each ask).
        out.stallP99.push(after.delay.p99);
        out.stallMax.push(after.delay.max);
        out.errors += r.errors + r.non2xx;
        spans[variant.id] += counted.spans ?? 0;
        if (counted.floor) {
          const work = floorWork[variant.id];
          for (const key of ['requests', 'files', 'bytes', 'faults']) work[key] += counted.floor[key];
          work.dir = counted.floor.dir;
        }
      }
      process.stdout.write(`  ${sizeLabel(size)}: round ${round + 1}/${rounds} done\n`);
    }
    upstream.stop();
    upstream = null;
  }
} finally {
  upstream?.stop();
  sink.close();
}

// Each peer must prove it did its work: a baseline that made no span measures nothing.
const proofs = variants.map((v) => {
  if (!v.proof) return [v.label, '-'];
  if (v.proof === 'spans') return [v.label, `${spans[v.id]} spans exported`, spans[v.id] > 0];
  if (v.proof === 'floor') {
    const work = floorWork[v.id];
    const kept = work.dir ? readdirSync(work.dir).filter((f) => f.endsWith('.json')).length : 0;
    const text = `${spans[v.id]} spans; ${work.files} files written (${MB(work.bytes)} MB) for ${work.requests} requests, ${kept} kept (limit 200), ${work.faults} faults`;
    return [v.label, text, spans[v.id] > 0 && work.files > 0 && kept > 0 && work.faults === 0];
  }
  if (v.proof === 'captures') {
    const n = captureFiles(prepared.find((p) => p.id === v.id).root);
    return [v.label, `${n} capture files kept (store limit 200)`, n > 0];
  }
  const got = sink.received.get(v.proof.slice('sink:'.length));
  return [v.label, `${spans[v.id]} spans; sink got ${got?.requests ?? 0} requests, ${got?.bytes ?? 0} bytes`, (got?.bytes ?? 0) > 0 && spans[v.id] > 0];
});

console.log(`\nload average at the end: ${loadAverage()}`);
for (const size of sizes) {
  const figures = (id) => {
    const r = results[size][id];
    return {
      rps: median(r.rps),
      cpu: median(r.cpu),
      busy: median(r.busy),
      threadCpu: r.threadCpu.length ? median(r.threadCpu) : NaN,
      p50: median(r.p50),
      p99: median(r.p99),
      rss: Math.max(...r.rss),
      stallP99: median(r.stallP99),
      stallMax: Math.max(...r.stallMax),
      errors: r.errors,
    };
  };
  const med = Object.fromEntries(variants.map((v) => [v.id, figures(v.id)]));
  const vs = (v, key, anchor) => (anchor === v.id || v.id === 'none' || !med[anchor] ? '-' : ratio(med[v.id][key], med[anchor][key]));
  const rows = variants.map((v) => {
    const m = med[v.id];
    return [
      v.label,
      m.rps.toFixed(0),
      m.cpu.toFixed(0),
      vs(v, 'cpu', 'otel'),
      vs(v, 'cpu', 'sentry'),
      m.busy.toFixed(0),
      vs(v, 'busy', 'otel'),
      Number.isNaN(m.threadCpu) ? '-' : m.threadCpu.toFixed(0),
      Number.isNaN(m.threadCpu) ? '-' : vs(v, 'threadCpu', 'otel'),
      m.p50.toFixed(1),
      m.p99.toFixed(1),
      m.rss.toFixed(0),
      m.stallP99.toFixed(1),
      m.stallMax.toFixed(1),
      m.errors,
    ];
  });
  console.log(`\nanswers of ${sizeLabel(size)} (3 per request):`);
  console.log(
    table(
      [
        'variant',
        'req/s',
        'CPU µs/req',
        'vs plain OTel',
        'vs Sentry',
        'app thread busy µs/req',
        'vs plain OTel',
        'app thread CPU µs/req',
        'vs plain OTel',
        'p50 ms',
        'p99 ms',
        'peak RSS MB',
        'loop delay p99 ms',
        'loop delay max ms',
        'errors',
      ],
      rows,
    ),
  );
}
console.log(
  '\n' +
    table(
      ['variant', 'proof it did its work'],
      proofs.map((p) => p.slice(0, 2)),
    ),
);
const failed = proofs.filter((p) => p[2] === false);
if (failed.length) {
  console.error(`\nnot measured: ${failed.map((p) => p[0]).join(', ')} did no work`);
  process.exitCode = 1;
}
