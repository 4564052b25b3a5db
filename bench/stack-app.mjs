// The web-server app of bench/server-app.mjs with a timed stack capture where each of its 3 outgoing calls
// is made (run by bench/stack.mjs, no instrumentation): what V8's stack walk costs inside a busy server, at
// the frame limit STACK_LIMIT, the way Probe captures (structured call sites; STACK_FORMAT=later: made on the next
// turn, timed apart). Prints `listening <port>`;
// over IPC it answers `stacks` (the capture times in µs, sorted) and `loop` (the p50 of 20,000 captures
// in a tight loop, before any load). Self-contained, so it repeats
// server-app.mjs's handler: the benchmarks copy an app script alone into a temp app folder.
import http from 'node:http';

const upstream = process.argv[2];
const limit = Number(process.env.STACK_LIMIT ?? 10);
// `now`: call sites made at the capture, as Probe takes them. `later`: V8's raw capture only, its call sites made on
// the next turn (the formatter is asked at the first read of `stack`), timed apart in `formats`.
const later = process.env.STACK_FORMAT === 'later';
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const times = [];
const formats = [];
const pending = [];
const asCallSites = (_error, sites) => sites;

function timedCapture() {
  const t0 = process.hrtime.bigint();
  const previousPrepare = Error.prepareStackTrace;
  const previousLimit = Error.stackTraceLimit;
  if (!later) Error.prepareStackTrace = asCallSites;
  Error.stackTraceLimit = limit;
  const holder = {};
  Error.captureStackTrace(holder, timedCapture);
  const sites = later ? holder : holder.stack;
  Error.prepareStackTrace = previousPrepare;
  Error.stackTraceLimit = previousLimit;
  times.push(Number(process.hrtime.bigint() - t0) / 1000);
  if (later && pending.push(holder) === 1) setImmediate(formatPending);
  return sites;
}

function formatPending() {
  for (const holder of pending.splice(0)) {
    const t0 = process.hrtime.bigint();
    const previousPrepare = Error.prepareStackTrace;
    Error.prepareStackTrace = asCallSites;
    if (!Array.isArray(holder.stack)) throw new Error('no call sites');
    Error.prepareStackTrace = previousPrepare;
    formats.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
}

function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function handle(req, res) {
  timedCapture();
  const user = await (await fetch(`${upstream}/users/42`)).json();
  timedCapture();
  const orders = await get(`${upstream}/orders?user=42&token=abc`);
  timedCapture();
  const stock = await (
    await fetch(`${upstream}/stock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: [1, 2, 3] }) })
  ).json();
  const body = JSON.stringify({ user: user.ok, orders: orders.items.length, stock: stock.ok });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((error) => {
    res.writeHead(500);
    res.end(String(error));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));

process.on('message', (msg) => {
  if (msg === 'stacks') process.send({ sorted: times.splice(0).sort((a, b) => a - b), formats: formats.splice(0).sort((a, b) => a - b) });
  // The same capture in a tight loop with no load: what a microbenchmark of it shows.
  if (msg === 'loop') {
    for (let i = 0; i < 20_000; i++) timedCapture();
    formatPending();
    formats.length = 0;
    const loop = times.splice(0).sort((a, b) => a - b);
    process.send({ p50: loop[loop.length >> 1] });
  }
});
process.on('SIGTERM', () => process.exit(0));
