// Store benchmark: put throughput and index()/find() latency of the `file` and `redis` drivers with the default
// limit (200 captures), at about 2 KB and about 20 KB per capture. The baseline, measured in the same run, is
// a naive index that reads and parses every capture: index() must not grow with capture size, the naive one does.
//
//   npm run build && node bench/store-bench.mjs          (starts its own redis-server on a free port)
//   REDIS_URL=redis://host:6379 node bench/store-bench.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeCapture } from '../test/store/fixtures/capture.mjs';

const require = createRequire(import.meta.url);
const { FileStore } = require('../dist/store/FileStore.js');
const { RedisStore } = require('../dist/store/RedisStore.js');

const LIMIT = 200;
const SIZES = [2_000, 20_000];
const READS = 100;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeMs(run) {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function measure(store, bytes, naiveIndex) {
  await store.clear();
  const captures = Array.from({ length: LIMIT }, (_, i) => makeCapture({ bytes, startedAt: Date.now() / 1000 + i / 1000 }));
  const actualBytes = Math.round(captures.reduce((sum, c) => sum + JSON.stringify(c).length, 0) / captures.length);
  for (const capture of captures.slice(0, 10)) await store.put(capture); // warm-up (connection, folder)
  await store.clear();
  const putMs = await timeMs(async () => {
    for (const capture of captures) await store.put(capture);
  });
  // A full store: every further put also trims one.
  const extra = Array.from({ length: LIMIT }, (_, i) => makeCapture({ bytes, startedAt: Date.now() / 1000 + 1 + i / 1000 }));
  const putFullMs = await timeMs(async () => {
    for (const capture of extra) await store.put(capture);
  });
  const rows = await store.index();
  if (rows.length !== LIMIT) throw new Error(`expected ${LIMIT} rows, got ${rows.length}`);
  for (let i = 0; i < 5; i++) await store.index(); // warm-up (JIT, page cache)
  const indexMs = [];
  const findMs = [];
  const naiveMs = [];
  for (let i = 0; i < READS; i++) {
    indexMs.push(await timeMs(() => store.index()));
    findMs.push(await timeMs(() => store.find(rows[i % rows.length].id)));
    if (naiveIndex) naiveMs.push(await timeMs(() => naiveIndex()));
  }
  return {
    bytes: actualBytes,
    putPerSec: Math.round((LIMIT / putMs) * 1000),
    putFullPerSec: Math.round((LIMIT / putFullMs) * 1000),
    indexMs: median(indexMs),
    findMs: median(findMs),
    naiveMs: naiveIndex ? median(naiveMs) : null,
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-bench-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    let output = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`redis-server exited (${code})`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  child.stdout.resume();
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

const fmt = (ms) => (ms === null ? '–' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

async function main() {
  const redis = process.env.REDIS_URL ? { url: process.env.REDIS_URL, stop() {} } : await startRedis();
  const results = [];
  try {
    for (const bytes of SIZES) {
      const folder = mkdtempSync(path.join(os.tmpdir(), 'probe-bench-file-'));
      const file = new FileStore({ path: folder, limit: LIMIT });
      const naive = async () =>
        readdirSync(folder)
          .filter((name) => name.endsWith('.json'))
          .map((name) => JSON.parse(readFileSync(path.join(folder, name), 'utf8')))
          .sort((a, b) => b.started_at - a.started_at);
      results.push({ driver: 'file', ...(await measure(file, bytes, naive)) });

      const store = new RedisStore({ url: redis.url, prefix: `probe-bench-${process.pid}-${bytes}:`, ttl: 3600, limit: LIMIT });
      results.push({ driver: 'redis', ...(await measure(store, bytes, null)) });
      await store.clear();
      await store.close();
    }
  } finally {
    redis.stop();
  }

  console.log(`Probe store benchmark: ${LIMIT} captures (the default limit), Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`);
  console.log('');
  console.log('| driver | capture size | put/s (filling) | put/s (full, with trim) | index() ms | find() ms | naive index (read every capture) ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.driver} | ${(r.bytes / 1000).toFixed(1)} KB | ${r.putPerSec} | ${r.putFullPerSec} | ${fmt(r.indexMs)} | ${fmt(r.findMs)} | ${fmt(r.naiveMs)} |`,
    );
  }
  console.log('');
  for (const driver of ['file', 'redis']) {
    const [small, large] = SIZES.map((bytes) => results.find((r) => r.driver === driver && r.bytes >= bytes * 0.5 && r.bytes < bytes * 2));
    console.log(`${driver}: index() at ~20 KB / at ~2 KB = ${(large.indexMs / small.indexMs).toFixed(2)}×`);
  }
  const [naiveSmall, naiveLarge] = SIZES.map((bytes) => results.find((r) => r.driver === 'file' && r.bytes >= bytes * 0.5 && r.bytes < bytes * 2).naiveMs);
  console.log(`baseline (read every capture file): ~20 KB / ~2 KB = ${(naiveLarge / naiveSmall).toFixed(2)}×`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
