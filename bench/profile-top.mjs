#!/usr/bin/env node
// Summarises V8 .cpuprofile files (from `--cpu-prof`): self time by area (Probe's dist/, OpenTelemetry,
// undici, node internals, the app, GC/idle) and the top functions in Probe's own code.
// Usage: node bench/profile-top.mjs FILE.cpuprofile [more...] [--top 25]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO, table } from './lib/common.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
const DIST = process.env.PROFILE_DIST ? path.resolve(process.env.PROFILE_DIST) + path.sep : path.join(REPO, 'dist') + path.sep;

function area(url, name) {
  const file = url.replace(/^file:\/\//, '');
  if (!url) return name === '(garbage collector)' ? 'gc' : name === '(idle)' || name === '(program)' ? name.slice(1, -1) : 'native/other';
  if (file.startsWith(DIST)) return 'probe (dist/)';
  if (file.includes('@opentelemetry')) return 'opentelemetry';
  if (file.includes('undici')) return 'undici';
  if (url.startsWith('node:')) return 'node internals';
  if (file.includes('node_modules')) return 'other packages';
  return 'app';
}

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const dt = new Map();
  // timeDeltas[i] is the time before sample i; attribute it to that sample's node.
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byArea = new Map();
  const byFn = new Map();
  // "Caused by": native and node-internal time charged to the nearest caller in JS packages or Probe
  // (fs writes, stack capture and JSON.stringify show up as native time otherwise).
  const parentOf = new Map();
  const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const byCause = new Map();
  const byCauseFn = new Map();
  for (const node of profile.nodes) {
    const self = dt.get(node.id) ?? 0;
    if (!self) continue;
    let cur = node;
    let a = area(cur.callFrame.url, cur.callFrame.functionName);
    if (a === 'idle' || a === 'gc' || a === 'program') continue;
    while ((a === 'native/other' || a === 'node internals') && parentOf.has(cur.id)) {
      cur = nodeById.get(parentOf.get(cur.id));
      a = area(cur.callFrame.url, cur.callFrame.functionName);
    }
    byCause.set(a, (byCause.get(a) ?? 0) + self);
    if (a === 'probe (dist/)') {
      const key = `${cur.callFrame.functionName || '(anonymous)'} ${path.relative(DIST, cur.callFrame.url.replace(/^file:\/\//, ''))}:${cur.callFrame.lineNumber + 1}`;
      byCauseFn.set(key, (byCauseFn.get(key) ?? 0) + self);
    }
  }
  let total = 0;
  for (const node of profile.nodes) {
    const self = dt.get(node.id) ?? 0;
    if (!self) continue;
    const { url, functionName, lineNumber } = node.callFrame;
    const a = area(url, functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + self);
    if (a !== 'idle') total += self;
    if (a === 'probe (dist/)') {
      const key = `${functionName || '(anonymous)'} ${path.relative(DIST, url.replace(/^file:\/\//, ''))}:${lineNumber + 1}`;
      byFn.set(key, (byFn.get(key) ?? 0) + self);
    }
  }
  const pct = (x) => ((100 * x) / total).toFixed(1) + '%';
  console.log(`\n${file}\nbusy ${(total / 1000).toFixed(0)} ms (idle excluded)`);
  console.log(
    table(
      ['area', 'self ms', 'share of busy'],
      [...byArea]
        .filter(([a]) => a !== 'idle')
        .sort((a, b) => b[1] - a[1])
        .map(([a, t]) => [a, (t / 1000).toFixed(0), pct(t)]),
    ),
  );
  console.log(
    '\n' +
      table(
        ['caused by (native + node internals charged to the JS caller)', 'ms', 'share of busy'],
        [...byCause].sort((a, b) => b[1] - a[1]).map(([a, t]) => [a, (t / 1000).toFixed(0), pct(t)]),
      ),
  );
  const causeTop = [...byCauseFn].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  if (causeTop.length)
    console.log(
      '\n' +
        table(
          ['Probe function (self + native/internals it calls)', 'ms', 'share of busy'],
          causeTop.map(([k, t]) => [k, (t / 1000).toFixed(1), pct(t)]),
        ),
    );
  const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  if (top.length)
    console.log(
      '\n' +
        table(
          ['Probe function (dist/, self time)', 'self ms', 'share of busy'],
          top.map(([k, t]) => [k, (t / 1000).toFixed(1), pct(t)]),
        ),
    );
}
