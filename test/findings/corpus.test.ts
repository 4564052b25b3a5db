import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Capture } from '../../src/capture/types';
import type { Finding, FindingKind } from '../../src/findings/Finding';
import { findingsOf } from '../../src/findings/findingsOf';
import { endpointViewOf } from '../../src/query/storeEndpoints';
import { FINDING_FLOOR } from '../../src/findings/floor';
import { TestApp, eventually, waitForLine } from '../helpers/app';
import { connectMcp } from '../helpers/mcp';
import { startDashboardCli } from '../dashboard/harness';

// A corpus of everyday call patterns, each written as real code: one route of one server run under the preload,
// calling a loopback upstream. Each pattern states the findings it must get AND every other kind is forbidden; the
// suite prints precision and recall per kind. One child process serves every pattern (one capture per route).
const SERVER = `const http = require('node:http');
const UP = process.env.UP;
const json = (r) => r.json();
const get = (path) => fetch(UP + path).then(json);
const getJson = (path) => fetch(UP + path).then(json); // @helper
const api = { get: (path) => fetch(UP + path).then(json) }; // @client
const post = (path, body) => fetch(UP + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function loadA() { return fetch(UP + '/config').then(json); } // @dup-a
async function loadB() { return fetch(UP + '/config').then(json); } // @dup-b
async function themeOf() { return api.get('/theme'); } // @shared-a
async function localeOf() { return api.get('/theme'); } // @shared-b
async function placeOrder() { return post('/orders', { sku: 'SKU-1', qty: 1 }); } // @write

const routes = {
  'numeric-ids': async () => { for (const id of [1, 2, 3, 4, 5]) await fetch(UP + '/items/' + id).then(json); }, // @numeric
  'string-ids': async () => { for (const sku of ['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5']) await fetch(UP + '/products/' + sku).then(json); }, // @string
  'email-ids': async () => {
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com', 'di@example.com', 'ed@example.com'])
      await fetch(UP + '/users/' + encodeURIComponent(email)).then(json); // @email
  },
  'prefixed-ids': async () => {
    for (const id of ['cus_9aF2kQ', 'cus_X81bbZ', 'cus_77Lm0p', 'cus_Q2w3E4', 'cus_zz90Ab']) await fetch(UP + '/customers/' + id).then(json); // @prefixed
  },
  'query-ids': async () => { for (const id of ['ab-x1', 'ab-x2', 'ab-x3', 'ab-x4', 'ab-x5']) await fetch(UP + '/lookup?id=' + id).then(json); }, // @query
  'helper-ids': async () => { for (const slug of ['red-shirt', 'blue-hat', 'green-scarf', 'gold-ring', 'grey-coat']) await getJson('/catalog/' + slug); }, // @helper-loop
  'graphql-ids': async () => {
    for (const id of ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'])
      await post('/graphql', { query: 'query Product($id: ID!) { product(id: $id) { id name } }', operationName: 'Product', variables: { id } }); // @graphql
  },
  'promise-all-ids': async () => { await Promise.all(['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5'].map((sku) => fetch(UP + '/products/' + sku).then(json))); }, // @all-ids
  'promise-all-different': async () => { await Promise.all([get('/profile'), get('/settings')]); },
  'chain-header-token': async () => {
    const { token } = await post('/login', { user: 'ada' });
    await fetch(UP + '/me', { headers: { authorization: 'Bearer ' + token } }).then(json);
  },
  'chain-url': async () => {
    const latest = await get('/latest');
    await get('/orders/' + latest.order);
  },
  'chain-body': async () => {
    const cart = await get('/cart');
    await post('/checkout', { cart: cart.cart_id });
  },
  'sequential-real': async () => { await get('/profile'); await get('/settings'); }, // @seq
  'sequential-negligible': async () => { await get('/ping'); await get('/version'); },
  'cursor-pagination': async () => {
    let page = await get('/feed');
    while (page.next_cursor) page = await get('/feed?cursor=' + encodeURIComponent(page.next_cursor)); // @cursor
  },
  'polling': async () => { while ((await get('/jobs/7')).state !== 'done') await sleep(40); },
  'retry-status': async () => {
    for (let attempt = 0; attempt < 3; attempt++) { const r = await fetch(UP + '/flaky'); await r.text(); if (r.ok) break; } // @retry-status
  },
  'retry-reset': async () => {
    for (let attempt = 0; attempt < 3; attempt++) { try { await fetch(UP + '/reset').then((r) => r.text()); break; } catch {} } // @retry-reset
  },
  'duplicate-callers': async () => { await loadA(); await loadB(); },
  'duplicate-shared-client': async () => { await themeOf(); await localeOf(); },
  'repeated-post': async () => {
    await placeOrder(); // @write-1
    await placeOrder(); // @write-2
  },
  'pool-of-two': async () => {
    const skus = ['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5', 'SKU-6'];
    const worker = async () => { for (let sku = skus.shift(); sku; sku = skus.shift()) await fetch(UP + '/stock/' + sku).then(json); }; // @pool
    await Promise.all([worker(), worker()]);
  },
  'slow-few': async (url) => { await get('/report' + (url.includes('?slow') ? '?slow=1' : '')); },
  'slow-many': async (url) => { await get('/search' + (url.includes('?slow') ? '?slow=1' : '')); },
  // One call per request, its id a string: the call site varies the segment across captures only.
  'slow-few-ids': async (url) => { await get('/parts/' + new URL(url, 'http://x').searchParams.get('id')); },
  'slow-many-ids': async (url) => { await get('/bins/' + new URL(url, 'http://x').searchParams.get('id')); },
  'read-after-write': async () => {
    for (const sku of ['SKU-1', 'SKU-2', 'SKU-3']) {
      await post('/cart/items', { sku });
      await get('/cart/summary');
      await sleep(10);
    }
  },
};

const server = http.createServer(async (req, res) => {
  const name = req.url.split('?')[0].slice(3);
  try {
    await routes[name](req.url);
    res.end('ok');
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

/** `server.js:<line>` of the line holding `marker`. */
function lineOf(marker: string): string {
  const at = SERVER.split('\n').findIndex((line) => line.includes(`// ${marker}`) || line.endsWith(marker));
  assert.ok(at >= 0, marker);
  return `server.js:${at + 1}`;
}

interface Expected {
  kind: FindingKind;
  rows?: number;
  lines?: string[];
  /** Listed only with every finding (`--all`): a pattern named, not advice. */
  hidden?: boolean;
}

/** Per route: the findings shown by default, exactly (any other kind shown is a false positive). */
const CORPUS: Record<string, Expected[]> = {
  'numeric-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@numeric')] }],
  'string-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@string')] }],
  'email-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@email')] }],
  'prefixed-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@prefixed')] }],
  'query-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@query')] }],
  'helper-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@helper')] }],
  'graphql-ids': [{ kind: 'n_plus_one', rows: 5 }],
  'promise-all-ids': [{ kind: 'n_plus_one', rows: 5, lines: [lineOf('@all-ids')] }],
  'promise-all-different': [],
  'chain-header-token': [],
  'chain-url': [],
  'chain-body': [],
  'sequential-real': [{ kind: 'sequential', rows: 2 }],
  'sequential-negligible': [],
  'cursor-pagination': [],
  polling: [{ kind: 'polling', rows: 4, hidden: true }],
  'read-after-write': [],
  'retry-status': [{ kind: 'retry', rows: 3, lines: [lineOf('@retry-status')] }],
  'retry-reset': [{ kind: 'retry', rows: 2, lines: [lineOf('@retry-reset')] }],
  'duplicate-callers': [{ kind: 'duplicate', rows: 2, lines: [lineOf('@dup-a'), lineOf('@dup-b')] }],
  'duplicate-shared-client': [{ kind: 'duplicate', rows: 2, lines: [lineOf('@shared-a'), lineOf('@shared-b')] }],
  'repeated-post': [{ kind: 'repeated_write', rows: 2 }],
  'pool-of-two': [{ kind: 'n_plus_one', rows: 6, lines: [lineOf('@pool')] }],
};

/** Kinds a pattern must never get, not even under the floor: advice that would make the code worse. */
const NEVER: Record<string, FindingKind[]> = {
  polling: ['duplicate', 'n_plus_one'],
  'cursor-pagination': ['duplicate', 'n_plus_one', 'polling'],
  'read-after-write': ['polling', 'duplicate'],
};

/** Upstream latency per path: real enough that a finding's time clears the floor where the pattern costs time. */
function delayOf(path: string): number {
  if (path === '/ping' || path === '/version') return 0;
  if (path === '/profile' || path === '/settings' || path === '/config' || path === '/theme') return 40;
  return 15;
}

describe('findings corpus: everyday patterns as real code, expected and forbidden findings', () => {
  let upstream: http.Server;
  let UP = '';
  const counters = new Map<string, number>();
  const count = (key: string) => {
    const n = counters.get(key) ?? 0;
    counters.set(key, n + 1);
    return n;
  };
  before(async () => {
    upstream = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://upstream');
        const path = url.pathname;
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null;
        const send = (status: number, value: unknown, delay = delayOf(path)) =>
          setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value)), delay);
        const segment = decodeURIComponent(path.split('/')[2] ?? '');
        // Each answer echoes its own path: the collection name in it is no sign the next call used it.
        if (path.startsWith('/items/')) return send(200, { id: Number(segment), title: `item ${segment}`, self: path });
        if (path.startsWith('/products/')) return send(200, { sku: segment, name: `product ${segment}`, price: 12.5 });
        if (path.startsWith('/users/')) return send(200, { email: segment, name: segment.split('@')[0] });
        if (path.startsWith('/customers/')) return send(200, { id: segment, plan: 'pro', seats: 3 });
        if (path === '/lookup') return send(200, { id: url.searchParams.get('id'), found: true });
        // The first answer names another slug of the loop: a coincidence, not a chain.
        if (path.startsWith('/catalog/')) return send(200, { slug: segment, related: segment === 'red-shirt' ? 'blue-hat' : 'none-such' });
        if (path === '/graphql') return send(200, { data: { product: { id: body?.variables?.id, name: 'x' } } });
        if (path === '/login') return send(200, { token: `tk_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}` });
        if (path === '/me') return send(req.headers.authorization?.startsWith('Bearer tk_') ? 200 : 401, { name: 'ada' });
        if (path === '/latest') return send(200, { order: `ord_${Math.random().toString(36).slice(2, 10)}` });
        if (path.startsWith('/orders/')) return send(200, { id: segment, total: 30 });
        if (path === '/cart/items') return send(201, { lines: count('cart-lines') + 1 }, 0);
        // What the cart holds changes with each write before it: read after write, not polling.
        if (path === '/cart/summary') return send(200, { lines: counters.get('cart-lines') ?? 0 }, 0);
        if (path.startsWith('/parts/') || path.startsWith('/bins/')) return send(200, { id: segment, stock: 4 }, segment.includes('slow') ? 400 : 10);
        if (path === '/cart') return send(200, { cart_id: `cart_${Math.random().toString(36).slice(2, 10)}`, lines: 2 });
        if (path === '/checkout') return send(200, { ok: true });
        if (path === '/profile') return send(200, { name: 'ada', bio: 'x' });
        if (path === '/settings') return send(200, { locale: 'en-GB', tz: 'UTC' });
        if (path === '/ping') return send(200, { pong: true });
        if (path === '/version') return send(200, { version: '1.2.3' });
        if (path === '/feed') {
          const page = Number(url.searchParams.get('cursor')?.split('_')[1] ?? 0);
          return send(200, { items: [`e${page}a`, `e${page}b`], next_cursor: page < 4 ? `c_${page + 1}_${Math.random().toString(36).slice(2, 8)}` : null });
        }
        if (path === '/jobs/7') return send(200, { id: 7, state: count('job') < 3 ? 'running' : 'done' });
        if (path === '/flaky') return count('flaky') < 2 ? send(503, { error: 'busy' }) : send(200, { ok: true });
        if (path === '/reset') {
          if (count('reset') === 0) return req.socket.destroy();
          return send(200, { ok: true });
        }
        if (path === '/config' || path === '/theme') return send(200, { theme: 'dark' });
        if (path === '/orders') return send(201, { id: `ord_${count('order')}` });
        if (path.startsWith('/stock/')) return send(200, { sku: segment, left: 4 }, 20 + (count('stock') % 3) * 10);
        if (path === '/report') return send(200, { rows: 3 }, url.searchParams.has('slow') ? 400 : 10);
        if (path === '/search') return send(200, { hits: 3 }, url.searchParams.has('slow') ? 400 : 10);
        send(404, {});
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    UP = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  test('each pattern gets exactly its findings; precision and recall per kind', async () => {
    const app = new TestApp({ 'server.js': SERVER });
    const child = app.spawn('server.js', { env: { UP } });
    try {
      const [, port] = await waitForLine(child, /listening (\d+)/);
      const hit = async (path: string) => assert.equal(await (await fetch(`http://127.0.0.1:${port}${path}`)).text(), 'ok', path);
      for (const name of Object.keys(CORPUS)) await hit(`/p/${name}`);
      // Stored calls for `slow`: a few, and many, usual ones, then one outlier each.
      for (let i = 0; i < 3; i++) await hit('/p/slow-few');
      for (let i = 0; i < 25; i++) await hit('/p/slow-many');
      // The same with a string id that changes with every request: one call per capture.
      for (let i = 0; i < 3; i++) await hit(`/p/slow-few-ids?id=part-${i}-q`);
      for (let i = 0; i < 25; i++) await hit(`/p/slow-many-ids?id=bin-${i}-z`);
      await hit('/p/slow-few?slow');
      await hit('/p/slow-many?slow');
      await hit('/p/slow-few-ids?id=part-slow');
      await hit('/p/slow-many-ids?id=bin-slow');
      const expectedCaptures = Object.keys(CORPUS).length + 2 * (3 + 25 + 2);
      const captures = await eventually(() => {
        const all = app.captures().filter((c) => c.name.startsWith('GET /p/'));
        return all.length >= expectedCaptures && all;
      });
      // What the store's captures say of each endpoint (durations, templates across captures), as a reader gathers it.
      const { stats, templates } = endpointViewOf(captures.map((c) => c.sections.http ?? []));
      const everyOf = (capture: Capture): Finding[] => findingsOf(capture, undefined, stats, true, templates);
      const shownOf = (capture: Capture): Finding[] => everyOf(capture).filter((f) => !f.below_floor);
      const byName = (name: string) => captures.filter((c) => c.name.split('?')[0] === `GET /p/${name}`);

      const tally = new Map<FindingKind, { tp: number; fp: number; fn: number }>();
      const score = (kind: FindingKind) => tally.get(kind) ?? (tally.set(kind, { tp: 0, fp: 0, fn: 0 }), tally.get(kind)!);
      const problems: string[] = [];
      // A call slower than the others of its endpoint is a fact of the machine as much as of the code: outside the
      // outliers made for it, a loaded machine may make one, and it is not counted.
      const judge = (name: string, capture: Capture, expected: Expected[]) => {
        // Shown findings, and polling wherever it is listed (it names a pattern: listed only with every finding).
        const found = everyOf(capture)
          .filter((f) => !f.below_floor || f.kind === 'polling')
          .filter((f) => f.kind !== 'slow' || expected.some((want) => want.kind === 'slow'));
        const left = [...found];
        for (const want of expected) {
          const at = left.findIndex((f) => f.kind === want.kind);
          if (at < 0) {
            score(want.kind).fn++;
            problems.push(`${name}: missed ${want.kind}`);
            continue;
          }
          const [got] = left.splice(at, 1);
          score(want.kind).tp++;
          if ((got!.below_floor === true) !== (want.hidden === true)) problems.push(`${name}: ${want.kind} ${want.hidden ? 'shown by default' : 'hidden'}`);
          if (want.rows !== undefined && got!.rows.length !== want.rows) problems.push(`${name}: ${want.kind} rows ${got!.rows.length}, want ${want.rows}`);
          if (want.lines && JSON.stringify(got!.lines) !== JSON.stringify(want.lines))
            problems.push(`${name}: ${want.kind} lines ${JSON.stringify(got!.lines)}, want ${JSON.stringify(want.lines)}`);
        }
        for (const extra of left) {
          score(extra.kind).fp++;
          problems.push(`${name}: forbidden ${extra.kind}: ${extra.message}`);
        }
      };
      for (const [name, expected] of Object.entries(CORPUS)) judge(name, byName(name)[0]!, expected);
      // The usual calls of the slow endpoints are not slow; each outlier is, against the others.
      for (const name of ['slow-few', 'slow-many', 'slow-few-ids', 'slow-many-ids']) {
        const runs = byName(name).sort((a, b) => a.started_at - b.started_at);
        runs.slice(0, -1).forEach((capture, i) => judge(`${name} #${i + 1}`, capture, []));
        judge(`${name} outlier`, runs[runs.length - 1]!, [{ kind: 'slow', rows: 1 }]);
      }

      const lines = [...tally].map(([kind, { tp, fp, fn }]) => {
        const precision = tp + fp ? tp / (tp + fp) : 1;
        const recall = tp + fn ? tp / (tp + fn) : 1;
        return `${kind.padEnd(15)} precision ${precision.toFixed(2)}  recall ${recall.toFixed(2)}  (tp ${tp}, fp ${fp}, fn ${fn})`;
      });
      console.log(`findings corpus, ${Object.keys(CORPUS).length + 4} patterns:\n${lines.join('\n')}`);
      assert.deepEqual(problems, []);

      // Advice that would break the code is never given, not even under the floor.
      for (const [name, never] of Object.entries(NEVER)) {
        for (const finding of everyOf(byName(name)[0]!)) assert.ok(!never.includes(finding.kind), `${name}: ${finding.message}`);
      }

      // Specific claims of the patterns.
      const poll = everyOf(byName('polling')[0]!).find((f) => f.kind === 'polling')!;
      assert.match(poll.message, /asked 4 times, one after another every \d+(\.\d)? ms on average, its answer changing 1 time/);
      const negligible = findingsOf(byName('sequential-negligible')[0]!, undefined, stats, true);
      for (const finding of negligible) {
        assert.equal(finding.kind, 'sequential', finding.message);
        const floor = Math.max(FINDING_FLOOR.ms, FINDING_FLOOR.share * byName('sequential-negligible')[0]!.duration);
        assert.equal(finding.below_floor === true, finding.cost.ms < floor, 'a sequential run is shown exactly when it costs the floor');
      }
      const token = byName('chain-header-token')[0]!.sections.http!;
      assert.deepEqual(token[1]!.uses, [0], 'GET /me used the login answer (a token sent in a masked header)');
      assert.doesNotMatch(JSON.stringify(token), /tk_[a-z0-9]{6}/, 'the token itself is stored nowhere');
      const templated = new Set(byName('string-ids')[0]!.sections.http!.map((row) => row.endpoint));
      assert.deepEqual([...templated], [`GET ${UP}/products/{id}`], 'a call site varying one segment calls one endpoint, as stored');
      const slowMany = shownOf(
        byName('slow-many')
          .sort((a, b) => a.started_at - b.started_at)
          .pop()!,
      )[0]!;
      assert.match(slowMany.message, /over 2[5-9] other stored calls/);
      const slowFew = shownOf(
        byName('slow-few')
          .sort((a, b) => a.started_at - b.started_at)
          .pop()!,
      )[0]!;
      assert.match(slowFew.message, /over 3 other stored calls/);
      // One call per capture, a string id: the endpoint is learned across the stored captures' call site.
      const newest = (name: string) => byName(name).sort((a, b) => a.started_at - b.started_at)[byName(name).length - 1]!;
      for (const [name, others] of [
        ['slow-few-ids', /over 3 other stored calls/],
        ['slow-many-ids', /over 2[5-9] other stored calls/],
      ] as const) {
        const [slow] = shownOf(newest(name));
        assert.equal(slow?.kind, 'slow', name);
        assert.match(slow!.message, others);
        assert.match(slow!.message, name === 'slow-few-ids' ? /p95 of GET \S+\/parts\/\{id\}/ : /p95 of GET \S+\/bins\/\{id\}/);
        // The store's reader (probe show) finds the same.
        const cli = await app.cli(['show', newest(name).id, '--json']);
        assert.equal(cli.code, 0, cli.stderr);
        assert.deepEqual(
          (JSON.parse(cli.stdout) as { findings: Finding[] }).findings.map((f) => [f.kind, f.endpoint]),
          [['slow', slow!.endpoint]],
        );
      }
      const write = shownOf(byName('repeated-post')[0]!)[0]!;
      for (const line of [lineOf('@write'), lineOf('@write-1'), lineOf('@write-2')]) assert.ok(write.lines.includes(line), `${line} in ${write.lines.join()}`);

      // The same templates group calls across captures: no group per id, whatever the ids look like.
      const grouped = await app.cli(['rows', '*', '--group-by', 'endpoint', '--limit', '100', '--json']);
      assert.equal(grouped.code, 0, grouped.stderr);
      const keys: Array<{ key: string; count: number }> = JSON.parse(grouped.stdout).groups;
      assert.deepEqual(
        keys.filter((group) => /SKU-|%40|cus_|red-shirt|\/items\/\d/.test(group.key)),
        [],
      );
      assert.ok(keys.some((group) => group.key === `GET ${UP}/products/{id}` && group.count === 10));
      // One capture alone is grouped by the store's templates too.
      const one = await app.cli(['rows', newest('slow-few-ids').id, '--group-by', 'endpoint', '--json']);
      assert.deepEqual(
        (JSON.parse(one.stdout) as { groups: Array<{ key: string }> }).groups.map((group) => group.key),
        [`GET ${UP}/parts/{id}`],
      );
      // probe diff aligns two one-call captures by it.
      const diffed = await app.cli(['diff', byName('slow-few-ids')[0]!.id, newest('slow-few-ids').id, '--json']);
      const diff = JSON.parse(diffed.stdout) as { matched: number; added: unknown[]; removed: unknown[] };
      assert.deepEqual([diff.matched, diff.added.length, diff.removed.length], [1, 0, 0]);
      // The dashboard serves the capture's rows with the same endpoints (its page groups by them).
      const dashboard = await startDashboardCli(app);
      try {
        const served = (await (await fetch(`${dashboard.origin}/api/captures/${newest('slow-few-ids').id}`)).json()) as Capture;
        assert.deepEqual(
          served.sections.http!.map((row) => row.endpoint),
          [`GET ${UP}/parts/{id}`],
        );
      } finally {
        await dashboard.stop();
      }

      // The CLI says the same, ordered by cost, with --all adding what is under the floor.
      const shown = await app.cli(['show', byName('sequential-real')[0]!.id, '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual(
        JSON.parse(shown.stdout).findings.map((f: Finding) => f.kind),
        ['sequential'],
      );
      const negligibleCapture = byName('sequential-negligible')[0]!;
      const text = await app.cli(['show', negligibleCapture.id]);
      const all = await app.cli(['show', negligibleCapture.id, '--all', '--json']);
      const hidden = JSON.parse(all.stdout).findings.filter((f: Finding) => f.below_floor);
      if (hidden.length) assert.match(text.stdout, /more findings? under the floor \(20 ms and 5 % of the capture\): probe show --all/);

      // The agents' probe-show gives the same findings as the CLI, with and without `all`.
      const mcp = await connectMcp(app);
      const cut = await app.cli(['show', negligibleCapture.id, '--json']);
      for (const [args, cli] of [
        [{ id: negligibleCapture.id }, cut],
        [{ id: negligibleCapture.id, all: true }, all],
      ] as const) {
        const tool = await mcp.call('probe-show', { ...args, max_tokens: 100_000 });
        const expected = JSON.parse(cli.stdout) as { findings: Finding[]; findings_below_floor?: number };
        assert.deepEqual(tool.json.findings, expected.findings, JSON.stringify(args));
        assert.equal(tool.json.findings_below_floor, expected.findings_below_floor, JSON.stringify(args));
      }
    } finally {
      child.kill();
    }
  });
});
