#!/usr/bin/env node
// Benchmark (peak RSS): what the store's thread costs in memory at a fixed rate of units, without the app,
// its load generator or its upstream (whose share of 2 cores moves bench/peers.mjs's figures with the machine's
// load). Each variant runs in a process of its own, which hands a ThreadedStore (file driver, the app's default
// config loaded by the thread) units of 3 calls answered by a JSON page of --answer bytes, at --rate units a
// second for --seconds, each unit's bodies copied as BodyTap copies them. Prints, per variant, the process's RSS
// before the thread started, once it had built one unit (the thread's isolate, its modules and config: the
// baseline), and the peaks under the rate (RSS, anonymous pages, the app thread's ArrayBuffers, the bytes in
// flight, the heap and external bytes the thread says it holds), the units dropped and the process's CPU per unit
// kept. --dist: another build of Probe (bench/.exp/, inside the repository so its dependencies resolve).
// Variants: `young:N` (the thread's young generation bound, MB; old 1024), `old:N` (its old generation's; young 8),
// `limits:Y/O` (both), `env:K=V` (an environment variable of the child,
// e.g. env:MALLOC_ARENA_MAX=2), `default` (the build's own bounds), `none` (no store: the process's own RSS),
// comma-separated, each with `@DIR` for another build than --dist's; each round runs them all.
// Usage: node bench/store-rss.mjs [--variants young:8,young:4,env:MALLOC_ARENA_MAX=2] [--rate 150] [--seconds 5]
//   [--answer 50k] [--rounds 2] [--dist dist]
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerOf } from './lib/answer.mjs';
import { loadAverage } from './lib/common.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    variants: { type: 'string', default: 'none,young:8' },
    rate: { type: 'string', default: '150' },
    seconds: { type: 'string', default: '5' },
    answer: { type: 'string', default: '50k' },
    rounds: { type: 'string', default: '2' },
    dist: { type: 'string', default: path.join(BENCH_DIR, '..', 'dist') },
    child: { type: 'string' },
  },
});
const bytesOf = (word) => {
  const m = /^(\d+)([km]?)$/i.exec(word);
  if (!m) throw new Error(`--answer: ${word}`);
  return Number(m[1]) * { '': 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
};
const MB = (bytes) => (bytes / (1024 * 1024)).toFixed(0);

if (values.child) await child(JSON.parse(values.child));
else await parent();

async function parent() {
  const variants = values.variants.split(',').map((v) => v.trim());
  console.log(`load average at the start: ${loadAverage()}`);
  console.log(
    `store-rss: ${values.rate} units/s of 3 × ${values.answer} JSON answers for ${values.seconds}s, ${values.rounds} rounds; ${os.cpus().length} cores, Node ${process.version}`,
  );
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const variant of variants.map((_, i) => variants[(i + round) % variants.length])) {
      const env = { ...process.env };
      delete env.NODE_OPTIONS;
      if (variant.startsWith('env:')) {
        const [key, value] = variant.slice(4).split('=');
        env[key] = value;
      }
      const out = await new Promise((resolve, reject) => {
        const run = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify({ variant, ...values, child: undefined })], {
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let text = '';
        run.stdout.on('data', (d) => (text += d));
        run.on('error', reject);
        run.on('exit', (code) => (code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`${variant}: exit ${code}`))));
      });
      const store =
        variant === 'none'
          ? ''
          : ` thread heap (baseline ${MB(out.threadBaselineHeap)}) ${MB(out.threadHeapUsed)}/${MB(out.threadHeapTotal)} external ${MB(out.threadExternal)} in flight ${MB(out.backlog)} collections ${out.collections} dropped ${out.dropped}, CPU ${out.cpuPerUnit.toFixed(0)} µs per unit kept`;
      console.log(
        `  ${variant.padEnd(24)} rss MB: before ${MB(out.before)} baseline ${MB(out.baseline)} peak ${MB(out.rss)} (anon ${MB(out.anon)}) app arrayBuffers ${MB(out.arrayBuffers)}${store}; ${out.units} units (load ${loadAverage()})`,
      );
    }
  }
  console.log(`load average at the end: ${loadAverage()}`);
}

async function child({ variant: named, rate, seconds, answer, dist: defaultDist }) {
  const [variant, dist = defaultDist] = named.split('@');
  const require = createRequire(path.join(path.resolve(dist), 'index.js'));
  const { ThreadedStore } = require('./store/ThreadedStore.js');
  const { FileStore } = require('./store/FileStore.js');
  const { loadConfig } = require('./config/load.js');
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-store-rss-'));
  writeFileSync(path.join(root, 'package.json'), '{"name":"app","private":true}');
  const body = Buffer.from(answerOf(bytesOf(answer)));
  const anon = () => Number(/^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
  const before = process.memoryUsage().rss;
  const peak = { rss: 0, anon: 0, arrayBuffers: 0, backlog: 0, threadHeapUsed: 0, threadHeapTotal: 0, threadExternal: 0, collections: 0 };
  let store = null;
  const sample = () => {
    const m = process.memoryUsage();
    const now = { rss: m.rss, anon: anon(), arrayBuffers: m.arrayBuffers, backlog: store?.inFlight ?? 0 };
    const thread = store?.memory();
    if (thread)
      Object.assign(now, {
        threadHeapUsed: thread.heapUsed,
        threadHeapTotal: thread.heapTotal,
        threadExternal: thread.external,
        collections: thread.collections ?? 0,
      });
    for (const [key, value] of Object.entries(now)) peak[key] = Math.max(peak[key], value);
  };
  let units = 0;
  // A unit as the recorder ends it: 3 calls, each answer copied into a buffer of its own as BodyTap copies it.
  const T0 = Date.now();
  const unit = (n) => ({
    id: `cap_${String(n).padStart(8, '0')}`,
    type: 'request',
    name: 'GET /checkout',
    status: '200',
    parentId: null,
    traceId: 'f'.repeat(32),
    linkedVia: null,
    rootSpanId: 'root1',
    startedAt: T0 + n,
    endedAt: T0 + n + 10,
    endedBy: 'response',
    label: null,
    tags: [],
    jobId: null,
    meta: { pid: process.pid, hostname: 'h', node: process.version, service: 'bench' },
    request: null,
    spans: [],
    calls: [0, 1, 2].map((i) => {
      const copy = Buffer.from(new ArrayBuffer(body.length));
      body.copy(copy);
      return {
        spanId: `s${n}-${i}`,
        parentSpanId: 'root1',
        method: 'GET',
        url: `http://127.0.0.1:1/orders/${i}`,
        requestHeaders: {},
        requestBody: null,
        status: 200,
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: { chunks: [copy], size: copy.length, truncated: false },
        clientDecodes: true,
        start: T0 + n,
        end: T0 + n + 5,
        timing: null,
        error: null,
        pool: null,
        fake: false,
        origin: null,
      };
    }),
    pools: [],
  });
  let dropped = 0;
  let baseline = before;
  let threadBaseline = { heapUsed: 0, heapTotal: 0, external: 0 };
  if (variant !== 'none') {
    const config = loadConfig({ cwd: root, env: { PROBE_ROOT: root } });
    const young = variant.startsWith('young:') ? Number(variant.slice(6)) : null;
    const oldBound = variant.startsWith('old:') ? Number(variant.slice(4)) : null;
    const both = variant.startsWith('limits:') ? variant.slice(7).split('/').map(Number) : null;
    store = new ThreadedStore(
      new FileStore({ path: path.join(root, '.probe', 'captures'), limit: 200, within: path.join(root, '.probe') }),
      undefined,
      undefined,
      {
        config,
        build: { cwd: root, env: { PROBE_ROOT: root }, overrides: {} },
        ...(young ? { threadLimits: { maxYoungGenerationSizeMb: young, maxOldGenerationSizeMb: 1024 } } : {}),
        ...(oldBound ? { threadLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: oldBound } } : {}),
        ...(both ? { threadLimits: { maxYoungGenerationSizeMb: both[0], maxOldGenerationSizeMb: both[1] } } : {}),
      },
    );
    // Past the first puts built on this thread: the store's thread started, its config loaded, one unit built.
    for (let n = 0; n < 9; n++) await store.putUnit(unit(units++));
    await new Promise((resolve) => setTimeout(resolve, 500));
    baseline = process.memoryUsage().rss;
    threadBaseline = store.memory();
  }
  const timer = setInterval(sample, 25);
  const cpu = process.cpuUsage();
  const end = Date.now() + Number(seconds) * 1000;
  const every = 1000 / Number(rate);
  const puts = [];
  let next = Date.now();
  while (Date.now() < end) {
    // No store: nothing is made (the process's own RSS at rest).
    if (store) puts.push(store.putUnit(unit(units)).then((kept) => kept || dropped++));
    units++;
    next += every;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  await Promise.all(puts);
  await store?.close();
  // The process's CPU (both threads) per unit built, from the first timed put to the last write.
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  sample();
  rmSync(root, { recursive: true, force: true });
  process.stdout.write(
    JSON.stringify({
      before,
      baseline,
      threadBaselineHeap: threadBaseline.heapTotal,
      ...peak,
      units,
      dropped,
      cpuPerUnit: (used.user + used.system) / Math.max(1, units - dropped),
    }),
  );
}
