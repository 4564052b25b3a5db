#!/usr/bin/env node
// Benchmark: the file store's write path alone, two builds side by side in one process. Each block puts
// `per` prepared captures of about `bytes` into each build's FileStore (limit 200, trims every 500 ms as the
// store's thread asks), alternating which goes first, and compares their process CPU per put (user and system,
// the trims included). Why: a put's cost is mostly system calls, which the whole server app (server-pair.mjs)
// measures under the noise of everything else; here the ratio is the write path's own.
// Usage: node bench/put-pair.mjs <dist A> <dist B> [blocks 16] [per 400] [bytes 1500]
//   e.g. copies of dist/ in bench/.exp/before and bench/.exp/after
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCapture } from '../test/store/fixtures/capture.mjs';
import { loadAverage } from './lib/common.mjs';
const require = createRequire(import.meta.url);
const [a, b, blocks = '16', per = '400', bytes = '1500'] = process.argv.slice(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-put-pair-'));
const variants = [a, b].map((dist, i) => {
  const { FileStore, preparePut } = require(path.resolve(dist, 'store/FileStore.js'));
  return {
    name: path.basename(dist),
    preparePut,
    store: new FileStore({ path: path.join(dir, `c${i}`), limit: 200, trimEveryMs: 500 }),
    user: 0,
    sys: 0,
    n: 0,
  };
});
let t = Date.now() / 1000;
for (const v of variants)
  await Promise.all(Array.from({ length: 200 }, () => v.store.putPrepared(v.preparePut(makeCapture({ bytes: Number(bytes), startedAt: (t += 0.001) })))));
const ratios = [];
for (let k = 0; k < Number(blocks); k++) {
  const us = [];
  for (const v of k % 2 ? [...variants].reverse() : variants) {
    const prepared = Array.from({ length: Number(per) }, () => v.preparePut(makeCapture({ bytes: Number(bytes), startedAt: (t += 0.001) })));
    const c0 = process.cpuUsage();
    const puts = [];
    for (let i = 0; i < prepared.length; i++) {
      puts.push(v.store.putPrepared(prepared[i]));
      if (i % 64 === 63) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(puts);
    const c = process.cpuUsage(c0);
    v.user += c.user;
    v.sys += c.system;
    v.n += prepared.length;
    v.last = (c.user + c.system) / prepared.length;
  }
  ratios.push(variants[1].last / variants[0].last);
}
for (const v of variants) console.log(`${v.name}: user ${(v.user / v.n).toFixed(1)} µs, sys ${(v.sys / v.n).toFixed(1)} µs per put`);
ratios.sort((x, y) => x - y);
console.log(`B/A per block: median ${ratios[ratios.length >> 1].toFixed(3)}, range ${ratios[0].toFixed(3)}-${ratios.at(-1).toFixed(3)}; load ${loadAverage()}`);
rmSync(dir, { recursive: true, force: true });
