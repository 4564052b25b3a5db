// The call-loop app (run by bench/calls.mjs, copied into a temp app folder): sequential keep-alive
// loopback calls with `fetch` and with `node:http`, reading each body to the end. Under Probe the calls
// are made inside `job()` units of BATCH calls each, like a worker; elsewhere `job` just runs the function.
// Prints one JSON line: wall-clock and CPU (user+system of this process) µs per call for each client.
import http from 'node:http';

const [url, countArg, warmArg] = process.argv.slice(2);
const COUNT = Number(countArg);
const WARM = Number(warmArg);
const BATCH = 50;
const { job } = process.env.BENCH_IS_PROBE ? await import(process.env.BENCH_PROBE) : { job: (_name, fn) => fn() };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function viaFetch() {
  const res = await fetch(`${url}/items?page=2`);
  return res.text();
}

function viaHttp() {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/items?page=2`, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function loop(call, n) {
  for (let done = 0; done < n; done += BATCH) {
    await job('bench batch', async () => {
      for (let i = 0; i < BATCH; i++) await call();
    });
  }
}

async function measure(call) {
  await loop(call, WARM);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  await loop(call, COUNT);
  const cpu = process.cpuUsage(c0);
  return { wall: Number(process.hrtime.bigint() - t0) / 1000 / COUNT, cpu: (cpu.user + cpu.system) / COUNT };
}

const result = {};
// Alternate the two clients inside the process too.
for (const name of process.env.BENCH_ORDER === 'http' ? ['http', 'fetch'] : ['fetch', 'http']) {
  result[name] = await measure(name === 'fetch' ? viaFetch : viaHttp);
}
// What the OTel baseline's exporter counted: proof that it instrumented these calls (null elsewhere).
await globalThis.__benchFlush?.();
result.spans = globalThis.__benchSpans ?? null;
process.stdout.write(`result ${JSON.stringify(result)}\n`);
agent.destroy();
