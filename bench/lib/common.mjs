// Shared helpers for the benchmark programs: the four variants, temp app folders, child processes,
// medians and tables. Each variant runs in its own child process; the parent only drives and measures.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = path.resolve(BENCH_DIR, '..');
export const OTEL_PRELOAD = path.join(BENCH_DIR, 'otel-preload.cjs');
const OTEL = OTEL_PRELOAD;

export const VARIANTS = [
  { id: 'none', label: '(a) no instrumentation' },
  { id: 'otel', label: '(b) plain OpenTelemetry' },
  { id: 'probe', label: '(c) Probe, defaults' },
  { id: 'bodies', label: '(d) Probe, bodies: true' },
];

/**
 * With `--diagnose`: Probe with one part turned off, to put a number on what that part costs.
 * `nostore` registers a driver that drops every capture (building still happens); `noorigin` turns
 * `origin.enabled` off (no stack capture, no origin resolution); `unsampled` records no request: what a request
 * left out by sampling costs.
 */
export const DIAGNOSTIC_VARIANTS = [
  { id: 'nostore', label: '(e) Probe, store that drops', probe: true },
  { id: 'noorigin', label: '(f) Probe, origin off', probe: true },
  { id: 'sampled', label: '(g) Probe, sampling.rate 0.1', probe: true, env: { PROBE_SAMPLE_RATE: '0.1' } },
  { id: 'unsampled', label: '(h) Probe, sampling.rate 0 (no request recorded)', probe: true, env: { PROBE_SAMPLE_RATE: '0' } },
];

/**
 * The floor of keeping bodies (bench/floor-preload.cjs): plain OTel plus the least a tool keeping every call's bodies
 * must do, without Probe: `floor`, `floor-rename` (temp file then rename, as Probe's file store), `floor-stack` (+ the
 * caller's stack per call), `floor-sampled` (the last, keeping 1 request in 10).
 */
export const FLOOR_VARIANTS = (() => {
  const preloadFile = path.join(BENCH_DIR, 'floor-preload.cjs');
  const floor = (id, label, env) => ({ id, label, preloadFile, env, proof: 'floor' });
  return [
    floor('floor', 'floor: OTel + copy, mask, serialise, write', {}),
    floor('floor-rename', 'floor + temp file and rename', { BENCH_FLOOR_RENAME: '1' }),
    floor('floor-stack', 'floor + rename + caller stack', { BENCH_FLOOR_RENAME: '1', BENCH_FLOOR_STACK: '1' }),
    floor('floor-sampled', 'floor + rename + stack, 1 in 10 kept', { BENCH_FLOOR_RENAME: '1', BENCH_FLOOR_STACK: '1', BENCH_FLOOR_SAMPLE: '0.1' }),
  ];
})();

const DROPPING_STORE_CONFIG = `module.exports = {
  storage: { driver: 'bench-drop' },
  register(probe) {
    probe.extendStore('bench-drop', () => ({ put: async () => {}, find: async () => null, index: async () => [], clear: async () => {} }));
  },
};
`;

export const isProbe = (variant) => variant.probe === true || ['probe', 'bodies', 'nostore', 'noorigin', 'try'].includes(variant.id);

/**
 * With `--try DIR`: Probe (defaults) built into another folder, e.g. a candidate fix, side by side. The
 * folder must resolve Probe's dependencies (be inside this repository): elsewhere the preload cannot start,
 * the app runs unrecorded, and the figures would silently be those of no instrumentation.
 */
export const tryVariant = (dir, label = `(x) Probe from ${path.relative(REPO, path.resolve(dir)) || dir}`) => {
  const dist = path.resolve(dir);
  try {
    createRequire(path.join(dist, 'register.js')).resolve('@opentelemetry/api');
  } catch {
    throw new Error(`${dir}: Probe's dependencies do not resolve from there; put the build inside ${REPO} (bench/.exp/ is ignored by git)`);
  }
  return { id: 'try', label, dist };
};

/**
 * A temp app folder per variant (package.json, the app script copied in so that its frames count as app
 * frames, and for `bodies` a probe.config.json). Returns how to start the app script under that variant.
 */
export function prepareVariant(variant, appScript, extraConfig = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), `probe-bench-${variant.id}-`));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: `bench-${variant.id}`, private: true }));
  const lens = { ...(variant.id === 'bodies' ? { bodies: true } : {}), ...extraConfig };
  if (variant.id === 'nostore') writeFileSync(path.join(root, 'probe.config.cjs'), DROPPING_STORE_CONFIG);
  else if (variant.id === 'noorigin') writeFileSync(path.join(root, 'probe.config.json'), JSON.stringify({ origin: { enabled: false } }));
  else if (Object.keys(lens).length) writeFileSync(path.join(root, 'probe.config.json'), JSON.stringify({ lenses: { HttpClientLens: lens } }));
  const script = path.join(root, path.basename(appScript));
  copyFileSync(appScript, script);
  const dist = variant.dist ?? path.join(REPO, 'dist');
  // A variant may bring its own preload (a peer's SDK set-up) and environment.
  const preloadFile = variant.preloadFile ?? (variant.id === 'otel' ? OTEL : path.join(dist, 'register.js'));
  const preload = variant.id === 'none' ? [] : ['--require', preloadFile];
  const env = {
    ...process.env,
    PROBE_ROOT: root,
    BENCH_VARIANT: variant.id,
    BENCH_IS_PROBE: isProbe(variant) ? '1' : '',
    BENCH_PROBE: path.join(dist, 'index.js'),
    ...variant.env,
  };
  delete env.NODE_OPTIONS;
  return { ...variant, root, script, preload, env };
}

/** Starts `node [flags] [preload] script args` and resolves once stdout prints a line matching `ready`. */
export function startChild(prepared, args = [], { flags = [], ready = /^listening (\d+)/m, ipc = false } = {}) {
  const child = spawn(process.execPath, [...flags, ...prepared.preload, prepared.script, ...args], {
    cwd: prepared.root,
    env: prepared.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const match = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = ready && out.match(ready);
      if (m) resolve(m);
    });
    child.on('exit', (code) => reject(new Error(`${prepared.id} child exited (${code}) before ready\n${err}`)));
  });
  const done = new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  return { child, match, done, output: () => out, errors: () => err };
}

/** The upstream server, in its own process; `answerBytes` sets the size of its JSON answer (bench/upstream.mjs). */
export async function startUpstream({ answerBytes = 0, keepAliveMs = 0 } = {}) {
  const env = { ...process.env, BENCH_ANSWER_BYTES: String(answerBytes), ...(keepAliveMs ? { BENCH_KEEPALIVE_MS: String(keepAliveMs) } : {}) };
  const started = startChild({ id: 'upstream', preload: [], script: path.join(BENCH_DIR, 'upstream.mjs'), root: BENCH_DIR, env });
  const m = await started.match;
  return { url: `http://127.0.0.1:${m[1]}`, stop: () => started.child.kill('SIGTERM') };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** Rotates the variant order each round so that no variant always runs first (or last). */
export const rotated = (list, round) => list.map((_, i) => list[(i + round) % list.length]);

export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map(String));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(cells[0]),
    `|${widths.map((w, i) => (i === 0 ? ':' : '') + '-'.repeat(w + 1) + (i === 0 ? '' : ':')).join('|')}|`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

export function machine() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? os.cpus()[0]?.model ?? '?';
  return `${os.availableParallelism?.() ?? os.cpus().length} cores, ${cpu}, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** The machine's load averages (1, 5, 15 min), printed beside every figure: the VM's 2 cores are shared. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

export const ratio = (a, b) => (b ? (a / b).toFixed(2) + '×' : '-');
