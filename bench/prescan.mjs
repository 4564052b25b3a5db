#!/usr/bin/env node
// Benchmark: the JSON pre-scan (src/mask/jsonPrescan.ts, with its credential scan) against the one it replaced
// (test/helpers/jsonPrescanBefore.ts), alternated in one process, warm, on bodies that need no masking (the
// pre-scan then reads all of the text): answer pages, API lists, unicode, escapes, nesting, pretty-printed.
// Prints CPU ns per byte (median of the rounds) for each, their ratio, and the load average.
// Usage: node --import tsx bench/prescan.mjs [--rounds 9] [--bytes 2000000] [--sizes 5120,51200,512000]
import { parseArgs } from 'node:util';
import { loadAverage, machine, median, table } from './lib/common.mjs';
import { prescanShapes } from './lib/prescanShapes.mjs';
import { resolveConfig } from '../src/config/resolve.ts';
import { jsonMayNeedMasking } from '../src/mask/jsonPrescan.ts';
import { jsonMayNeedMasking as before } from '../test/helpers/jsonPrescanBefore.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    bytes: { type: 'string', default: '2000000' },
    sizes: { type: 'string', default: '5120,51200,512000' },
  },
});
const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const isSecret = (name) => masker.isSecretName(name);
const shapes = prescanShapes(values.sizes.split(',').map(Number));

/** ns per byte of `scan` over `text`, read again until about `bytes` bytes are read. */
function nsPerByte(scan, text) {
  const times = Math.max(1, Math.round(Number(values.bytes) / text.length));
  let answers = 0;
  // CPU time, not the clock: other processes on the machine take the CPU away between turns, not during them.
  const start = process.cpuUsage();
  for (let k = 0; k < times; k++) if (scan(text, isSecret)) answers++;
  const used = process.cpuUsage(start);
  const ns = (used.user + used.system) * 1000;
  if (answers) throw new Error('bench/prescan: a shape needs masking, so the pre-scan stopped early: fix the shape');
  return ns / (times * text.length);
}

console.log(`# JSON pre-scan: before (test/helpers/jsonPrescanBefore.ts) vs now (src/mask/jsonPrescan.ts)`);
console.log(`# ${machine()}; load average at start ${loadAverage()}`);
for (const [, text] of shapes) for (let k = 0; k < 3; k++) (nsPerByte(before, text), nsPerByte(jsonMayNeedMasking, text));
const rows = [];
for (const [name, text] of shapes) {
  const old = [];
  const now = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    old.push(nsPerByte(before, text));
    now.push(nsPerByte(jsonMayNeedMasking, text));
  }
  const o = median(old);
  const n = median(now);
  rows.push([name, String(text.length), o.toFixed(2), n.toFixed(2), (o / n).toFixed(2) + '×']);
}
console.log(table(['body', 'chars', 'before ns/B', 'now ns/B', 'before / now'], rows));
console.log(`# load average at end ${loadAverage()}`);
