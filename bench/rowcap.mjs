#!/usr/bin/env node
// Row cap: one job() making 100,000 calls under Probe with default settings (max_rows 1000). Prints the
// heap (after GC) as the calls go, then reads the stored capture: rows must equal max_rows and
// summary.dropped_rows count the rest, with totals counting every call.
// Usage: node bench/rowcap.mjs [--calls 100000] [--workers 8]
import { parseArgs } from 'node:util';
import path from 'node:path';
import { createRequire } from 'node:module';
import { BENCH_DIR, VARIANTS, prepareVariant, startChild, startUpstream, table, machine } from './lib/common.mjs';
const { FileStore } = createRequire(import.meta.url)('../dist/index.js');

const { values } = parseArgs({ options: { calls: { type: 'string', default: '100000' }, workers: { type: 'string', default: '8' } } });
const variant = prepareVariant(
  VARIANTS.find((v) => v.id === 'probe'),
  path.join(BENCH_DIR, 'rowcap-app.mjs'),
);
const upstream = await startUpstream();
const MiB = (n) => (n / 1048576).toFixed(1);

console.log(`rowcap: ${values.calls} fetch calls in one job, ${values.workers} at a time, Probe defaults, ${machine()}`);
const t0 = Date.now();
let result;
try {
  const run = startChild(variant, [upstream.url, values.calls, values.workers], { flags: ['--expose-gc'], ready: /^marks (.*)$/m });
  const [, marks] = await run.match;
  result = { marks: JSON.parse(marks), exit: await run.done };
} finally {
  upstream.stop();
}
console.log(`ran in ${((Date.now() - t0) / 1000).toFixed(1)}s, exit code ${result.exit.code}${result.exit.err ? `, stderr: ${result.exit.err.trim()}` : ''}`);
console.log(
  '\n' +
    table(
      ['calls made', 'heapUsed MiB (after GC)'],
      result.marks.map((m) => [m.calls, MiB(m.heap)]),
    ),
);

const dir = path.join(variant.root, '.probe', 'captures');
const store = new FileStore({ path: dir, limit: 200 });
const captures = (await Promise.all((await store.index()).filter((r) => r.type === 'job' && r.name === 'rowcap').map((r) => store.find(r.id)))).filter(Boolean);
const capture = captures[0];
if (!capture) {
  console.log('\nno job capture named "rowcap" was stored');
  process.exitCode = 1;
} else {
  const rows = capture.sections.http.length;
  const dropped = capture.summary.dropped_rows ?? 0;
  const calls = capture.summary.totals?.http_calls;
  console.log(`\nstored capture ${capture.id}: rows ${rows}, summary.dropped_rows ${dropped}, totals.http_calls ${calls}, rows + dropped = ${rows + dropped}`);
  const ok = rows === 1000 && rows + dropped === Number(values.calls) && calls === Number(values.calls);
  console.log(ok ? 'row cap holds' : 'ROW CAP DOES NOT HOLD');
  if (!ok) process.exitCode = 1;
}
