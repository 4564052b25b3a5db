// The row-cap app (run by bench/rowcap.mjs under Probe, copied into a temp app folder): one job() that
// makes CALLS keep-alive fetch calls, WORKERS at a time, printing heapUsed after GC at five checkpoints.
const [url, callsArg, workersArg] = process.argv.slice(2);
const CALLS = Number(callsArg);
const WORKERS = Number(workersArg);
const { job } = await import(process.env.BENCH_PROBE);

const heap = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
};

await job('rowcap', async () => {
  const marks = [];
  let made = 0;
  let next = 1;
  marks.push({ calls: 0, heap: await heap() });
  const quarter = CALLS / 4;
  while (made < CALLS) {
    const target = Math.min(CALLS, Math.round(next * quarter));
    const worker = async () => {
      while (made < target) {
        made++;
        await (await fetch(`${url}/item/${made}`)).text();
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    marks.push({ calls: made, heap: await heap() });
    next++;
  }
  process.stdout.write(`marks ${JSON.stringify(marks)}\n`);
});
