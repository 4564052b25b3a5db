// The web-server app (run by bench/server.mjs and bench/memory.mjs, copied into a temp app folder): each
// request makes 3 outgoing keep-alive calls to the upstream in turn (fetch, node:http, fetch) and answers
// a small JSON body. With ABANDON=N, every Nth request also starts a fetch and never reads its body.
// Prints `listening <port>`. Over IPC it answers `cpu` (process.cpuUsage) and `heap` (heapUsed after GC).
import http from 'node:http';

const upstream = process.argv[2];
const abandonEvery = Number(process.env.ABANDON ?? 0);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let served = 0;

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
  const user = await (await fetch(`${upstream}/users/42`)).json();
  const orders = await get(`${upstream}/orders?user=42&token=abc`);
  const stock = await (
    await fetch(`${upstream}/stock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: [1, 2, 3] }) })
  ).json();
  if (abandonEvery && ++served % abandonEvery === 0) {
    // The app gives up on this body: Probe must not keep the call's state forever.
    await fetch(`${upstream}/abandoned`);
  }
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

process.on('message', async (msg) => {
  if (msg === 'cpu') process.send({ cpu: process.cpuUsage() });
  if (msg === 'spans') {
    // What the OTel baseline's exporter counted (null elsewhere): proof that it instrumented the calls.
    await globalThis.__benchFlush?.();
    process.send({ spans: globalThis.__benchSpans ?? null });
  }
  if (msg === 'heap') {
    for (let i = 0; i < 4; i++) {
      globalThis.gc?.();
      await new Promise((r) => setTimeout(r, 50));
    }
    process.send({ heap: process.memoryUsage().heapUsed });
  }
});
process.on('SIGTERM', () => process.exit(0));
