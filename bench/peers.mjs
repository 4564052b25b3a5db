#!/usr/bin/env node
// Benchmark: Probe beside what a user would run instead, in one run. A node:http server (bench/peers-app.cjs)
// whose handler makes 3 calls (fetch GET JSON, node:http GET JSON, fetch POST JSON with an authorization
// header) under a fixed concurrent load (autocannon, in this process), for six variants whose order rotates
// per round: none; plain OTel (http + undici instrumentations, batch processor, an exporter that drops);
// OTel exporting OTLP/HTTP protobuf to a local sink; @sentry/node with tracesSampleRate 1 sending to a local
// sink; Probe with defaults; Probe sampling 10%. Prints the server's own CPU µs per request (its
// process.cpuUsage()), medians and ratios, and fails when a peer did not really export (no spans counted,
// nothing reached its sink) or Probe stored nothing.
// Usage: node bench/peers.mjs [--rounds 5] [--seconds 6] [--connections 16] [--warm 2] [--try DIST_DIR]
import { parseArgs } from 'node:util';
import http from 'node:http';
import path from 'node:path';
import os from 'node:os';
import { readdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { BENCH_DIR, tryVariant, prepareVariant, startChild, startUpstream, median, rotated, table, machine, ratio } from './lib/common.mjs';
import { ask } from './lib/ipc.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '16' },
    warm: { type: 'string', default: '2' },
    try: { type: 'string' },
  },
});
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
const variants = [
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
  { id: 'probe', label: 'Probe, defaults', proof: 'captures' },
  { id: 'sampled', label: 'Probe, sampling.rate 0.1', probe: true, env: { PROBE_SAMPLE_RATE: '0.1' }, proof: 'captures' },
  ...(values.try ? [{ ...tryVariant(values.try), proof: 'captures' }] : []),
];
const prepared = variants.map((v) => prepareVariant(v, app));
const upstream = await startUpstream();
const results = Object.fromEntries(variants.map((v) => [v.id, { rps: [], cpu: [], errors: 0, spans: 0 }]));
const load = (url, duration) => autocannon({ url, connections: Number(values.connections), duration, pipelining: 1 });
const captureFiles = (root) => {
  try {
    return readdirSync(path.join(root, '.probe', 'captures')).filter((f) => f.endsWith('.json')).length;
  } catch {
    return 0;
  }
};

console.log(
  `load average at the start: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(`peers: ${rounds} rounds × ${values.seconds}s at ${values.connections} connections (after ${values.warm}s warm-up), ${machine()}`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotated(prepared, round)) {
      const run = startChild(variant, [upstream.url], { ipc: true });
      const [, port] = await run.match;
      const url = `http://127.0.0.1:${port}/checkout`;
      await load(url, Number(values.warm));
      const before = (await ask(run.child, 'cpu')).cpu;
      const r = await load(url, Number(values.seconds));
      const after = (await ask(run.child, 'cpu')).cpu;
      const { spans } = await ask(run.child, 'spans');
      run.child.kill('SIGTERM');
      await run.done;
      const out = results[variant.id];
      out.rps.push(r.requests.average);
      out.cpu.push((after.user - before.user + after.system - before.system) / Math.max(1, r.requests.total));
      out.errors += r.errors + r.non2xx;
      out.spans += spans ?? 0;
    }
    process.stdout.write(`  round ${round + 1}/${rounds} done\n`);
  }
} finally {
  upstream.stop();
  sink.close();
}

// Each peer must prove it did its work: a baseline that made no span measures nothing.
const proofs = variants.map((v) => {
  if (!v.proof) return [v.label, '-'];
  if (v.proof === 'spans') return [v.label, `${results[v.id].spans} spans exported`, results[v.id].spans > 0];
  if (v.proof === 'captures') {
    const n = captureFiles(prepared.find((p) => p.id === v.id).root);
    return [v.label, `${n} capture files kept (store limit 200)`, n > 0];
  }
  const got = sink.received.get(v.proof.slice('sink:'.length));
  return [
    v.label,
    `${results[v.id].spans} spans; sink got ${got?.requests ?? 0} requests, ${got?.bytes ?? 0} bytes`,
    (got?.bytes ?? 0) > 0 && results[v.id].spans > 0,
  ];
});

console.log(
  `\nload average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const med = Object.fromEntries(variants.map((v) => [v.id, { rps: median(results[v.id].rps), cpu: median(results[v.id].cpu) }]));
const anchors = ['none', 'otel', 'otlp', 'sentry'];
const rows = variants.map((v) => {
  const m = med[v.id];
  return [
    v.label,
    m.rps.toFixed(0),
    m.cpu.toFixed(0),
    ...anchors.map((a) => (a === v.id || v.id === 'none' ? '-' : ratio(m.cpu, med[a].cpu))),
    results[v.id].errors,
  ];
});
console.log('\n' + table(['variant', 'req/s', 'server CPU µs/req', 'vs none', 'vs plain OTel', 'vs OTel+OTLP', 'vs Sentry', 'errors'], rows));
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
