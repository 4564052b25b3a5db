// The call-loop app (run by bench/calls.mjs, copied into a temp app folder): sequential keep-alive loopback calls
// with one client (`fetch` or `node:http`), each body read to the end, as a script or a worker makes them. Mode
// `script`: the calls are the script's own (under Probe they live in the process's command capture, stored every
// second while it runs, past max_rows folded); mode `jobs`: inside `job()` units of BATCH calls each.
// CPU is the whole process's (every thread: process.cpuUsage), from the end of the warm-up to `beforeExit`, which
// runs after Probe's own exit work (its listener was registered first, by the preload): what the calls cost,
// including the capture versions written for them and the last one. Prints one JSON line.
import http from 'node:http';

const [url, client, countArg, warmArg, mode] = process.argv.slice(2);
const COUNT = Number(countArg);
const WARM = Number(warmArg);
const BATCH = 50;
const probe = process.env.BENCH_IS_PROBE && mode === 'jobs' ? await import(process.env.BENCH_PROBE) : null;
const job = probe ? probe.job : (_name, fn) => fn();

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function viaFetch() {
  const res = await fetch(url);
  return res.text();
}

function viaHttp() {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const call = client === 'fetch' ? viaFetch : viaHttp;

async function loop(n) {
  if (mode !== 'jobs') {
    for (let i = 0; i < n; i++) await call();
    return;
  }
  for (let done = 0; done < n; done += BATCH) {
    await job('bench batch', async () => {
      for (let i = 0; i < BATCH; i++) await call();
    });
  }
}

await loop(WARM);
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
await loop(COUNT);
const wall = Number(process.hrtime.bigint() - t0) / 1000 / COUNT;
agent.destroy();
// What the OTel baseline's exporter counted: proof that it instrumented these calls (null elsewhere).
await globalThis.__benchFlush?.();
process.once('beforeExit', () => {
  const cpu = process.cpuUsage(c0);
  process.stdout.write(`result ${JSON.stringify({ wall, cpu: (cpu.user + cpu.system) / COUNT, spans: globalThis.__benchSpans ?? null })}\n`);
});
