#!/usr/bin/env node
// Benchmark: findings over one capture, now (src/findings/) against the rules they replaced (read from git at
// --before, run from a temporary folder), on the case that was quadratic: a job whose one code line calls N distinct
// slugs, each answer a list of --values strings. Also the builder's share: building the capture (rows, `uses`,
// endpoint templates) with its time per call, and what the store's view of endpoints costs for the capture
// (query/storeEndpoints.ts: durations per endpoint and template evidence, made once per capture a reader keeps). Prints ms (median of the rounds, CPU time of this process) and the
// load average at the start and the end.
// Usage: node --import tsx bench/findings.mjs [--calls 1000,20000] [--values 500] [--rounds 3] [--before 34d3c67] [--before-max 1000]
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAverage, machine, median, table } from './lib/common.mjs';
import { resolveConfig } from '../src/config/resolve.ts';
import { buildCapture } from '../src/builder/buildCapture.ts';
import { readableCapture } from '../src/capture/readableCapture.ts';
import { findingsOf } from '../src/findings/findingsOf.ts';
import { endpointViewOf } from '../src/query/storeEndpoints.ts';
import { callInput, unitOf, T0 } from '../test/helpers/call-input.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000,20000' },
    values: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    before: { type: 'string', default: '34d3c67' },
    'before-max': { type: 'string', default: '1000' },
  },
});
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { max_rows: 100_000 } } }, env: {} });

/** The findings rules of an earlier commit, copied out of git into a folder of their own. */
async function rulesAt(rev) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-findings-before-'));
  const files = execFileSync('git', ['ls-tree', '--name-only', rev, 'src/findings/'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
  mkdirSync(path.join(dir, 'src', 'findings'), { recursive: true });
  for (const file of files) writeFileSync(path.join(dir, file), execFileSync('git', ['show', `${rev}:${file}`], { cwd: ROOT }));
  symlinkSync(path.join(ROOT, 'src', 'capture'), path.join(dir, 'src', 'capture'));
  return (await import(pathToFileURL(path.join(dir, 'src', 'findings', 'findingsOf.ts')).href)).findingsOf;
}

/** A job that loads N catalogue entries one by one from one line, each answering a list of `size` words. */
function jobOf(calls, size) {
  const list = [];
  for (let i = 0; i < calls; i++) {
    const words = Array.from({ length: size }, (_, k) => `word-${i}-${k}`);
    const body = Buffer.from(JSON.stringify(words));
    list.push(
      callInput({
        spanId: `s${i}`,
        url: `https://api.test/catalog/slug-${i}-x`,
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: { chunks: [body], size: body.length, truncated: false },
        start: T0 + i * 3,
        end: T0 + i * 3 + 2,
        origin: { file: 'job.js', line: 7, chain: ['job.js:7 load', 'job.js:12 run'] },
      }),
    );
  }
  return { ...unitOf(list), endedAt: T0 + calls * 3 + 5 };
}

/** CPU ms of `fn`. */
function cpuMs(fn) {
  const start = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000, result };
}

const rounds = Number(values.rounds);
const size = Number(values.values);
const before = values.before === 'none' ? null : await rulesAt(values.before);
console.log(`# findings over one capture: before (${values.before}) vs now; answers of ${size} values`);
console.log(`# ${machine()}; load average at start ${loadAverage()}`);
const rows = [];
for (const calls of values.calls.split(',').map(Number)) {
  const unit = jobOf(calls, size);
  const builds = [];
  let capture;
  for (let r = 0; r < rounds; r++) {
    const built = cpuMs(() => buildCapture(unit, config));
    builds.push(built.ms);
    capture = built.result;
  }
  const readable = readableCapture(JSON.parse(JSON.stringify(capture)));
  const now = [];
  let found;
  for (let r = 0; r < rounds; r++) {
    const run = cpuMs(() => findingsOf(readable));
    now.push(run.ms);
    found = run.result;
  }
  // What a reader keeps of the capture for the store's view (durations per endpoint, call sites' template evidence).
  const views = [];
  for (let r = 0; r < rounds; r++) views.push(cpuMs(() => endpointViewOf([readable.sections.http])).ms);
  let was = null;
  // The rules before saw the endpoints of their own builder: a slug was not folded, each call its own endpoint.
  const asBefore = { ...readable, sections: { ...readable.sections, http: readable.sections.http.map((row) => ({ ...row, endpoint: `GET ${row.url}` })) } };
  if (before && calls <= Number(values['before-max'])) was = cpuMs(() => before(asBefore)).ms;
  const kinds = found.map((f) => f.kind).join(',') || '-';
  rows.push([
    String(calls),
    median(builds).toFixed(0),
    ((median(builds) / calls) * 1000).toFixed(0),
    was === null ? '-' : was.toFixed(0),
    median(now).toFixed(0),
    median(views).toFixed(0),
    was === null ? '-' : `${(was / median(now)).toFixed(0)}×`,
    kinds,
  ]);
}
console.log(table(['calls', 'build ms', 'build µs/call', 'findings before ms', 'findings now ms', 'store view ms', 'faster', 'found now'], rows));
console.log(`# load average at end ${loadAverage()}`);
