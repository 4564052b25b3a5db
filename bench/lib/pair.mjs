// Two variants of the web-server app (bench/server-app.mjs) under load at the same time, each under its own
// autocannon for a fixed number of requests, compared by CPU time per request over the same seconds. Why:
// on a shared VM the machine's speed drifts by ±20% from one run to the next, which hides a 5% change
// between runs made one after the other; two apps measured side by side see the same drift, so their ratio
// holds still. Used by server-pair.mjs (one pair) and parts.mjs (a chain of pairs).
import autocannon from 'autocannon';
import { startChild } from './common.mjs';
import { ask } from './ipc.mjs';

/**
 * Runs `rounds` rounds of the prepared pair [A, B] against `upstream`; returns each round's CPU µs per
 * request of both apps and their ratio B/A. `log` gets one line per round.
 */
export async function runPair(pair, upstream, { rounds, requests, warm, connections }, log = () => {}) {
  const load = (port, amount) => autocannon({ url: `http://127.0.0.1:${port}/api/orders`, connections, amount, pipelining: 1 });
  const ratios = [];
  const cpus = [[], []];
  for (let round = 0; round < rounds; round++) {
    // Alternate which app starts first.
    const order = round % 2 ? [1, 0] : [0, 1];
    const runs = [];
    for (const i of order) {
      const run = startChild(pair[i], [upstream.url], { ipc: true });
      runs[i] = { run, port: (await run.match)[1] };
    }
    await Promise.all(runs.map(({ port }) => load(port, warm)));
    const before = await Promise.all(runs.map(({ run }) => ask(run.child, 'cpu')));
    const results = await Promise.all(runs.map(({ port }) => load(port, requests)));
    const after = await Promise.all(runs.map(({ run }) => ask(run.child, 'cpu')));
    const per = runs.map(
      (_, i) => (after[i].cpu.user - before[i].cpu.user + after[i].cpu.system - before[i].cpu.system) / Math.max(1, results[i].requests.total),
    );
    for (const [i, r] of results.entries()) if (r.errors + r.non2xx) throw new Error(`${pair[i].label}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    for (const { run } of runs) run.child.kill('SIGTERM');
    await Promise.all(runs.map(({ run }) => run.done));
    per.forEach((cpu, i) => cpus[i].push(cpu));
    ratios.push(per[1] / per[0]);
    log(`  round ${round + 1}: A ${per[0].toFixed(0)} µs/req, B ${per[1].toFixed(0)} µs/req, B/A ${(per[1] / per[0]).toFixed(3)}`);
  }
  return { ratios, cpus };
}
