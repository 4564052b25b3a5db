#!/usr/bin/env node
// Memory: the 3-call web server serves N requests (every 10th also abandons a fetch body) without
// instrumentation, with plain OTel and with Probe; after forcing GC it prints heapUsed before and after
// the load. Probe should stay within a few MiB of the app without it.
// Usage: node bench/memory.mjs [--requests 10000] [--connections 16]
import { parseArgs } from 'node:util';
import path from 'node:path';
import os from 'node:os';
import { readdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { BENCH_DIR, VARIANTS, prepareVariant, startChild, startUpstream, table, machine } from './lib/common.mjs';
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '10000' }, connections: { type: 'string', default: '16' } } });
const count = Number(values.requests);
const app = path.join(BENCH_DIR, 'server-app.mjs');
const variants = VARIANTS.filter((v) => v.id !== 'bodies').map((v) => prepareVariant(v, app));
const upstream = await startUpstream();
const MiB = (n) => (n / 1048576).toFixed(1);
const rows = [];

console.log(`memory: ${count} requests (3 calls each, every 10th abandons one more), ${machine()}, load ${os.loadavg()[0].toFixed(2)}`);
try {
  for (const variant of variants) {
    const env = { ...variant.env, ABANDON: '10' };
    const run = startChild({ ...variant, env }, [upstream.url], { ipc: true, flags: ['--expose-gc'] });
    const [, port] = await run.match;
    const url = `http://127.0.0.1:${port}/api/orders`;
    await autocannon({ url, connections: Number(values.connections), amount: 200 });
    await new Promise((r) => setTimeout(r, 500));
    const before = (await ask(run.child, 'heap')).heap;
    const t0 = Date.now();
    const r = await autocannon({ url, connections: Number(values.connections), amount: count });
    await new Promise((r) => setTimeout(r, 1500)); // let captures be built and stored
    const after = (await ask(run.child, 'heap')).heap;
    run.child.kill('SIGTERM');
    await run.done;
    let stored = '-';
    try {
      stored = String(readdirSync(path.join(variant.root, '.probe', 'captures')).filter((f) => /^\d{17}-.*\.json$/.test(f)).length);
    } catch {
      // no store for this variant
    }
    rows.push({ variant, before, after, ok: r['2xx'], errors: r.errors + r.non2xx, seconds: (Date.now() - t0) / 1000, stored });
    process.stdout.write(`  ${variant.id} done\n`);
  }
} finally {
  upstream.stop();
}
const base = rows.find((r) => r.variant.id === 'none');
console.log(
  '\n' +
    table(
      ['variant', 'requests ok', 'errors', 'heap before MiB', 'heap after MiB', 'growth MiB', 'after vs none MiB', 'captures stored'],
      rows.map((r) => [
        r.variant.label,
        r.ok,
        r.errors,
        MiB(r.before),
        MiB(r.after),
        MiB(r.after - r.before),
        r === base ? '-' : (r.after - base.after >= 0 ? '+' : '') + MiB(r.after - base.after),
        r.stored,
      ]),
    ),
);
