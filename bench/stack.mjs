#!/usr/bin/env node
// Benchmark: what one stack capture costs inside a busy web server, by frame limit. The server of
// bench/server.mjs (no instrumentation) takes a timed capture where each of its 3 calls is made
// (bench/stack-app.mjs), under autocannon; limits alternate across rounds. Why: a capture costs a few µs in
// a microbenchmark and ten times that in a real server, and how much of it a lower limit saves decides
// whether the caller line can be cheaper. Limit 0 walks no frame: what is left is a capture's fixed work.
// Each app first times the same capture in a tight loop with no load (the microbenchmark column).
// `--formats now,later`: the call sites made at the capture (as Probe does), or V8's raw capture alone with the call
// sites made on the next turn (timed apart: what making them later would move off the call).
// Usage: node bench/stack.mjs [--limits 0,1,5,10,20,40] [--formats now] [--rounds 3] [--requests 2000] [--connections 16]
import { parseArgs } from 'node:util';
import path from 'node:path';
import autocannon from 'autocannon';
import { BENCH_DIR, VARIANTS, prepareVariant, startChild, startUpstream, median, table, machine } from './lib/common.mjs';
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({
  options: {
    limits: { type: 'string', default: '0,1,5,10,20,40' },
    formats: { type: 'string', default: 'now' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '16' },
  },
});
const limits = values.limits.split(',').map(Number);
const formats = values.formats.split(',');
const cases = formats.flatMap((format) => limits.map((limit) => ({ format, limit, key: `${format} ${limit}` })));
const app = prepareVariant(
  VARIANTS.find((v) => v.id === 'none'),
  path.join(BENCH_DIR, 'stack-app.mjs'),
);
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
const results = new Map(cases.map(({ key }) => [key, { p50: [], p90: [], mean: [], loop: [], format: [] }]));
console.log(
  `stack capture in a busy server; limits ${limits.join(', ')}; call sites made ${formats.join(', ')}; ${values.rounds} rounds × ${values.requests} requests; ${machine()}`,
);
const upstream = await startUpstream();
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const { format, limit, key } of round % 2 ? [...cases].reverse() : cases) {
      const run = startChild({ ...app, env: { ...app.env, STACK_LIMIT: String(limit), STACK_FORMAT: format } }, [upstream.url], { ipc: true });
      const port = (await run.match)[1];
      const { p50: loop } = await ask(run.child, 'loop');
      const load = (amount) => autocannon({ url: `http://127.0.0.1:${port}/`, connections: Number(values.connections), amount });
      await load(500);
      await ask(run.child, 'stacks'); // drop the warm-up's
      const result = await load(Number(values.requests));
      if (result.errors + result.non2xx) throw new Error(`limit ${limit}: ${result.errors} errors, ${result.non2xx} non-2xx`);
      const { sorted, formats: made } = await ask(run.child, 'stacks');
      run.child.kill('SIGTERM');
      await run.done;
      const r = results.get(key);
      r.p50.push(at(sorted, 0.5));
      if (made.length) r.format.push(at(made, 0.5));
      r.p90.push(at(sorted, 0.9));
      r.mean.push(sorted.reduce((a, b) => a + b, 0) / sorted.length);
      r.loop.push(loop);
    }
  }
} finally {
  upstream.stop();
}
const rows = cases.map(({ format, limit, key }) => {
  const r = results.get(key);
  const made = r.format.length ? median(r.format).toFixed(1) : '–';
  return [format, String(limit), median(r.p50).toFixed(1), median(r.p90).toFixed(1), median(r.mean).toFixed(1), made, median(r.loop).toFixed(1)];
});
console.log(
  `\n${table(['call sites made', 'frame limit', 'p50 µs per capture', 'p90 µs', 'mean µs', 'later: p50 µs to make them', 'tight loop, no load: p50 µs'], rows)}`,
);
