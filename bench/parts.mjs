#!/usr/bin/env node
// Benchmark: what each part of Probe costs in the web server of bench/server.mjs, as a chain of paired runs
// (bench/lib/pair.mjs). Each step is a build of Probe with one more part switched on, compared with the
// step before it, both apps under load over the same seconds:
//   otel       plain OpenTelemetry (the floor Probe builds on)
//   lens       Probe recording calls and units, with no stack capture and no capture built (units dropped)
//   stack      + the caller's stack at each call, resolved to an origin on a later turn
//   handoff    + each ended unit handed to the store's thread (bodies copied once, transferred), not built there
//   build      + the capture built on the store's thread (not serialized, not written)
//   serialize  + the capture turned into its file's JSON text there (not written)
//   write      + written as a file: Probe as shipped
// The last three run on the store's thread: they add process CPU, not app-thread time. The
// builds are copies of dist/ in bench/.exp/parts/ with one line changed each (a check fails loudly when
// dist/ no longer has the line). Prints each step's ratio, the CPU µs per request it adds, and the chain's
// product, which stands for Probe against plain OTel.
// Usage: npm run build && node bench/parts.mjs [--rounds 4] [--requests 3000] [--warm 1000] [--connections 8]
import { parseArgs } from 'node:util';
import path from 'node:path';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { BENCH_DIR, REPO, VARIANTS, tryVariant, prepareVariant, startUpstream, median, machine, table } from './lib/common.mjs';
import { runPair } from './lib/pair.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    requests: { type: 'string', default: '3000' },
    warm: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '8' },
  },
});

/** One change to a compiled file of the copy; throws when dist/ no longer reads as expected. */
function patch(dist, file, pattern, replacement) {
  const target = path.join(dist, file);
  const text = readFileSync(target, 'utf8');
  const hits = text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  if (hits !== 1) throw new Error(`bench/parts: ${file} has ${hits} matches for ${pattern}, expected 1 (dist/ changed: update this program)`);
  writeFileSync(target, text.replace(pattern, replacement));
}

const NO_CAPTURE = ['runtime/CaptureWriter.js', /enqueue\(unit\) \{/, 'enqueue(unit) { return;'];
const NO_STACK = ['runtime/Recorder.js', /setStackCapture\)\(config\.origin\.enabled,/, 'setStackCapture)(false,'];
// The store's thread (store/storeThread.ts): what it does with each unit it is handed, cut after a part.
const THREAD = 'store/storeThread.js';
const UNIT_WORK = /\(0, FileStore_1\.preparePut\)\(\(0, buildCapture_1\.buildCapture\)\(\(0, unitMessage_1\.unpackUnit\)\(unit\), config\)\)/;
const THREAD_STOPS_AT = (work) => [THREAD, UNIT_WORK, `(${work}, null)`];
/** A unit whose work ended before the write is answered as done, with nothing written. */
const NO_WRITE = [
  THREAD,
  /written = store\.putPrepared\(typeof put === 'function' \? put\(\) : put\);/,
  "{ const prepared = typeof put === 'function' ? put() : put; written = prepared ? store.putPrepared(prepared) : Promise.resolve(); }",
];

const STEPS = [
  { id: 'lens', adds: 'recording calls and units (no stack, no capture)', patches: [NO_CAPTURE, NO_STACK] },
  { id: 'stack', adds: "the caller's stack and origin", patches: [NO_CAPTURE] },
  { id: 'handoff', adds: "handing units to the store's thread", patches: [THREAD_STOPS_AT('(0, unitMessage_1.unpackUnit)(unit)'), NO_WRITE] },
  {
    id: 'build',
    adds: "building the capture (store's thread)",
    patches: [THREAD_STOPS_AT('(0, buildCapture_1.buildCapture)((0, unitMessage_1.unpackUnit)(unit), config)'), NO_WRITE],
  },
  {
    id: 'serialize',
    adds: "the capture file's JSON text (store's thread)",
    patches: [THREAD_STOPS_AT('(0, FileStore_1.preparePut)((0, buildCapture_1.buildCapture)((0, unitMessage_1.unpackUnit)(unit), config))'), NO_WRITE],
  },
  { id: 'write', adds: "writing the file (store's thread)", patches: null },
];

const app = path.join(BENCH_DIR, 'server-app.mjs');
const otel = prepareVariant(
  VARIANTS.find((v) => v.id === 'otel'),
  app,
);
const builds = STEPS.map((step) => {
  if (!step.patches)
    return prepareVariant(
      VARIANTS.find((v) => v.id === 'probe'),
      app,
    );
  const dist = path.join(BENCH_DIR, '.exp', 'parts', step.id, 'dist');
  rmSync(dist, { recursive: true, force: true });
  cpSync(path.join(REPO, 'dist'), dist, { recursive: true });
  for (const [file, pattern, replacement] of step.patches) patch(dist, file, pattern, replacement);
  return prepareVariant(tryVariant(dist, `(${step.id}) Probe up to ${step.id}`), app);
});

const options = { rounds: Number(values.rounds), requests: Number(values.requests), warm: Number(values.warm), connections: Number(values.connections) };
console.log(
  `server, parts of Probe as a chain of paired runs; ${options.rounds} rounds × ${options.requests} requests at ${options.connections} connections each per step; ${machine()}`,
);
const upstream = await startUpstream();
const rows = [];
let product = 1;
try {
  let before = otel;
  for (const [i, step] of STEPS.entries()) {
    console.log(`${before.label} → ${builds[i].label}`);
    const { ratios, cpus } = await runPair([before, builds[i]], upstream, options, (line) => console.log(line));
    const sorted = [...ratios].sort((x, y) => x - y);
    const ratio = median(ratios);
    product *= ratio;
    rows.push([
      step.id,
      step.adds,
      `${median(cpus[0]).toFixed(0)} → ${median(cpus[1]).toFixed(0)}`,
      `${ratio.toFixed(3)}×`,
      `${sorted[0].toFixed(3)}–${sorted.at(-1).toFixed(3)}`,
      (median(cpus[1]) - median(cpus[0])).toFixed(0),
      `${product.toFixed(2)}×`,
    ]);
    before = builds[i];
  }
} finally {
  upstream.stop();
}
console.log();
console.log(table(['step', 'adds', 'server CPU µs/req (before → after)', 'after/before', 'range', 'µs/req added', 'vs plain OTel (chain)'], rows));
