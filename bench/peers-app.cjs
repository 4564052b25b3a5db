// The web-server app of bench/peers.mjs (copied into a temp app folder, so its frames are app frames): each
// request makes the 3 calls a typical handler makes to an upstream in another process (fetch GET JSON,
// node:http GET JSON, fetch POST JSON with an authorization header) and answers a small JSON body.
// Prints `listening <port>`. Over IPC it answers `cpu` (its own process.cpuUsage, event-loop utilisation and
// peak RSS) and `spans` (what the variant's preload counted as exported, so a baseline proves it instrumented
// the calls).
'use strict';
const http = require('node:http');
const { readFileSync } = require('node:fs');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');

const upstream = process.argv[2];
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function getJson(url) {
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

async function handle(_req, res) {
  const user = await (await fetch(`${upstream}/users/42`)).json();
  const orders = await getJson(`${upstream}/orders?user=42`);
  const saved = await (
    await fetch(`${upstream}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-secret' },
      body: JSON.stringify({ user: 42, items: [1, 2, 3] }),
    })
  ).json();
  const body = JSON.stringify({ user: user.ok, orders: orders.items.length, saved: saved.ok });
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

// The app's event-loop stalls (issue 28's target: none above 50 ms caused by Probe), since the last 'cpu' ask: the
// histogram restarts at each ask, so the one after the load holds that load's delays only.
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

// The main thread's own CPU time in µs (Linux: utime + stime of /proc/thread-self/stat, in clock ticks of 10 ms),
// or null elsewhere. Event-loop utilisation counts the wall time the loop is not idle, which grows when the
// thread waits for a core held by another thread or process (on a 2-core machine: the load generator, the
// upstream, the store's thread); CPU time does not.
function mainThreadCpu() {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

// With BENCH_MEMORY (bench/peers.mjs --memory): where the RSS goes, sampled every 25 ms (peaks since the last ask):
// this thread's heap, external and ArrayBuffer bytes, and for Probe the store's own figures (bytes in flight to its
// thread, units posted and not finished, the thread's heap as it reports it). The store is found by wrapping its
// class's putUnit in the same dist/ the preload loaded: a bench's look inside, not an API.
const memory = process.env.BENCH_MEMORY ? memorySampler() : null;

function memorySampler() {
  let store = null;
  if (process.env.BENCH_IS_PROBE) {
    try {
      const dist = require('node:path').dirname(process.env.BENCH_PROBE);
      const { ThreadedStore } = require(`${dist}/store/ThreadedStore.js`);
      const putUnit = ThreadedStore.prototype.putUnit;
      ThreadedStore.prototype.putUnit = function (unit) {
        store = this;
        return putUnit.call(this, unit);
      };
      // The body bytes handed over in chunks small enough to be copied (and the copy left to the app's collector) or
      // large enough to be moved (unitMessage.ts's MOVE_MIN_BYTES).
      const message = require(`${dist}/store/unitMessage.js`);
      const packUnit = message.packUnit;
      message.packUnit = function (unit) {
        for (const call of unit.calls ?? []) {
          for (const body of [call.requestBody, call.responseBody]) {
            for (const chunk of body?.chunks ?? []) {
              if (chunk.length >= (message.MOVE_MIN_BYTES ?? Infinity)) chunks.large += chunk.length;
              else chunks.small += chunk.length;
            }
          }
        }
        return packUnit.call(this, unit);
      };
    } catch {
      // another build's layout: app-side figures only
    }
  }
  const chunks = { small: 0, large: 0 };
  let peak = {};
  let pages = {};
  const sample = () => {
    const m = process.memoryUsage();
    const now = { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, ...pages };
    if (store) {
      now.backlog = store.inFlight ?? store.backlog?.inFlight ?? 0;
      now.lagUnits = (store.posted ?? 0) - (store.finished?.[0] ?? 0);
      const held = store.memory?.();
      if (held) for (const [key, value] of Object.entries(held)) now[`thread.${key}`] = value;
    }
    for (const [key, value] of Object.entries(now)) peak[key] = Math.max(peak[key] ?? 0, value);
  };
  setInterval(sample, 25).unref();
  // Reading smaps costs more than memoryUsage: four times a second.
  setInterval(() => (pages = residentPages() ?? {}), 250).unref();
  return {
    take() {
      sample();
      const out = { ...peak, dropped: store?.dropped?.units ?? 0, ...(store ? { chunksSmall: chunks.small, chunksLarge: chunks.large } : {}) };
      peak = {};
      return out;
    },
  };
}

/**
 * Linux: the resident pages by kind, in bytes: anonymous and file-backed (/proc/self/status), and of the anonymous
 * ones those in glibc's malloc arenas (/proc/self/smaps): the main arena is the [heap] mapping; another thread's
 * arena is a 64 MB-aligned reservation of 64 MB, mapped read-write as it grows (rw-p) and the rest PROT_NONE (---p).
 * V8's own pages are anonymous mappings too, but neither [heap] nor such reservations. Null elsewhere.
 */
function residentPages() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    const out = { anon: kb('RssAnon'), file: kb('RssFile') };
    const ARENA = 64 * 1024 * 1024;
    let mainArena = 0;
    let arenas = 0;
    let arenaCount = 0;
    let open = null;
    for (const block of readFileSync('/proc/self/smaps', 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)[ \t]*([^\n]*)/.exec(block);
      if (!head) continue;
      const start = parseInt(head[1], 16);
      const end = parseInt(head[2], 16);
      const rss = Number(/^Rss:\s+(\d+) kB/m.exec(block)?.[1] ?? 0) * 1024;
      const name = head[5].trim();
      if (name === '[heap]') mainArena += rss;
      if (head[4] !== '0' || name) {
        open = null;
        continue;
      }
      // A thread arena: rw-p at a 64 MB boundary, then ---p up to the next boundary (or all rw-p).
      if (head[3] === 'rw-p' && start % ARENA === 0) {
        open = { start, rss };
        if (end - start === ARENA) ((arenas += rss), arenaCount++, (open = null));
      } else if (open && head[3] === '---p' && end - open.start === ARENA) {
        arenas += open.rss;
        arenaCount++;
        open = null;
      } else open = null;
    }
    return { ...out, mainArena, threadArenas: arenas, threadArenaCount: arenaCount * 1024 * 1024 };
  } catch {
    return null;
  }
}

process.on('message', async (msg) => {
  if (msg === 'memory') process.send({ memory: memory?.take() ?? null });
  // The app thread's busy time (event-loop utilisation: time not idle in the loop), the peak RSS so far, and the
  // event loop's delays (ms) since the last ask.
  if (msg === 'cpu') {
    const delay = { max: loopDelay.max / 1e6, p99: loopDelay.percentile(99) / 1e6 };
    loopDelay.reset();
    process.send({
      cpu: process.cpuUsage(),
      threadCpu: mainThreadCpu(),
      elu: performance.eventLoopUtilization(),
      maxRssKb: process.resourceUsage().maxRSS,
      delay,
    });
  }
  if (msg === 'spans') {
    // Batch processors export on a timer: flush what the preload holds before counting.
    await globalThis.__benchFlush?.();
    // A preload that keeps bodies without Probe (bench/floor-preload.cjs) also says what its thread wrote.
    process.send({ spans: globalThis.__benchSpans ?? null, floor: globalThis.__benchProof?.() ?? null });
  }
});
process.on('SIGTERM', () => process.exit(0));
