// Flows across services: gateway → orders → inventory as real child processes sharing one store (a folder, or a real
// redis-server). A call in one service is linked to the request capture of the service that answered it, both ways
// (the row's `answered_by`, the capture's `caused_by`), from the connection both ends saw; `probe show --flow`
// prints the tree with each service's calls and code lines. Keep-alive connections under 50 concurrent requests
// link each call to its own answer; with the app's own OpenTelemetry propagation the links agree with the
// `traceparent` each call sent; a service that is not recorded leaves its caller's call unlinked.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Services, getJson, startForeign } from './services';
import { startCollector } from '../collector/collectCli';
import { whilePossible } from '../helpers/app';
import { FileStore } from '../../src/store/FileStore';
import { RedisStore } from '../../src/store/RedisStore';
import type { Store } from '../../src/capture/Store';
import type { Capture } from '../../src/capture/types';
import { RedisServer } from '../helpers/redis';
import { connectMcp } from '../helpers/mcp';

const LIMIT = { timeout: 480_000 };

interface Chain {
  services: Services;
  gateway: string;
  store: Store;
  alive: () => boolean;
}

/** Starts inventory, then orders (calling it with fetch), then gateway (calling orders with node:http, keep-alive). */
async function chain(options: { env?: Record<string, string | undefined>; ordersRecorded?: boolean; redis?: RedisServer } = {}): Promise<Chain> {
  const services = new Services(options.env);
  let store: Store;
  if (options.redis) {
    const prefix = `probe-flow-${path.basename(services.root)}:`;
    writeFileSync(path.join(services.root, 'probe.config.json'), JSON.stringify({ storage: { driver: 'redis', redis: { url: options.redis.url, prefix } } }));
    store = new RedisStore({ url: options.redis.url, prefix, ttl: 3600, limit: 200 });
    after(() => (store as RedisStore).close());
  } else store = new FileStore({ path: path.join(services.root, '.probe', 'captures'), limit: 1000, within: path.join(services.root, '.probe') });
  const inventory = await services.start('inventory', { env: { DELAY_MS: '20' } });
  const orders = await services.start('orders', { next: [inventory.url + 'stock'], env: { CLIENT: 'fetch' }, recorded: options.ordersRecorded });
  const gateway = await services.start('gateway', { next: [orders.url + 'orders'] });
  const all = [inventory, orders, gateway];
  return { services, gateway: gateway.url, store, alive: () => all.every((service) => service.child.exitCode === null) };
}

/** Every capture in the store, read whole (links included), once `count` of them are there. */
async function capturesOf(c: Chain, count: number): Promise<Capture[]> {
  return whilePossible(
    async () => {
      const index = await c.store.index();
      if (index.length < count) return false;
      const captures = await Promise.all(index.map((row) => c.store.find(row.id)));
      return captures.filter((capture): capture is Capture => capture !== null);
    },
    c.alive,
    `${count} captures stored`,
  );
}

const tagOf = (capture: Capture) => new URL(capture.sections.request!.url).searchParams.get('tag');
const serviceCalls = (services: Services, service: string, pattern: RegExp) => {
  const lines = readFileSync(path.join(services.root, service, 'service.cjs'), 'utf8').split('\n');
  return lines.findIndex((line) => pattern.test(line)) + 1;
};

/** Linked both ways: every call answered by a capture that names that call as its cause, and the tags agree. */
function assertLinked(captures: Capture[], expectedLinks: number): void {
  const byId = new Map(captures.map((capture) => [capture.id, capture]));
  let links = 0;
  for (const capture of captures) {
    for (const [row, call] of (capture.sections.http ?? []).entries()) {
      if (!call.answered_by) continue;
      const answer = byId.get(call.answered_by);
      assert.ok(answer, `${capture.service} row ${row} answered by a stored capture`);
      assert.deepEqual(answer.caused_by, { capture: capture.id, row });
      assert.equal(tagOf(answer), tagOf(capture), 'a call linked to the answer of another request (crossed)');
      links++;
    }
    if (capture.caused_by) assert.equal(byId.get(capture.caused_by.capture)?.sections.http?.[capture.caused_by.row]?.answered_by, capture.id);
  }
  assert.equal(links, expectedLinks);
}

for (const kind of ['folder', 'redis'] as const) {
  test(`one request through three services (${kind} store): three captures linked both ways, and probe show --flow`, LIMIT, async () => {
    const redis = kind === 'redis' ? await RedisServer.start() : undefined;
    const c = await chain({ redis });
    const answer = await getJson(`${c.gateway}checkout?tag=one`);
    assert.equal(answer.status, 200);
    const captures = await capturesOf(c, 3);
    const byService = Object.fromEntries(captures.map((capture) => [capture.service, capture]));
    assert.deepEqual(Object.keys(byService).sort(), ['gateway', 'inventory', 'orders']);
    const { gateway, orders, inventory } = byService as Record<string, Capture>;
    assert.equal(gateway!.sections.http![0]!.answered_by, orders!.id);
    assert.deepEqual(orders!.caused_by, { capture: gateway!.id, row: 0 });
    assert.equal(orders!.sections.http![0]!.answered_by, inventory!.id);
    assert.deepEqual(inventory!.caused_by, { capture: orders!.id, row: 0 });
    assert.equal(gateway!.caused_by, undefined);
    assertLinked(captures, 2);

    // The tree from any of its captures: each service, each call with the line that made it (the line the app's file has).
    const httpLine = serviceCalls(c.services, 'gateway', /http\.get\(url/);
    const fetchLine = serviceCalls(c.services, 'orders', /await fetch\(url\)/);
    for (const from of [gateway!.id, inventory!.id]) {
      const shown = await c.services.app.cli(['show', from, '--flow'], kind === 'redis' ? {} : {});
      assert.equal(shown.code, 0, shown.stderr);
      const lines = shown.stdout.split('\n');
      const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
      const order = [
        at(/^\* \[gateway\] GET \/checkout\s+200/),
        at(new RegExp(`^  \\* GET http://127\\.0\\.0\\.1:\\d+/orders\\?tag=one\\s+200\\s+[\\d.]+ms\\s+gateway/service\\.cjs:${httpLine}$`)),
        at(/^    \* \[orders\] GET \/orders\s+200/),
        at(new RegExp(`^      \\* GET http://127\\.0\\.0\\.1:\\d+/stock\\?tag=one\\s+200\\s+[\\d.]+ms\\s+orders/service\\.cjs:${fetchLine}$`)),
        at(/^        \* \[inventory\] GET \/stock\s+200/),
      ];
      assert.ok(
        order.every((index, i) => index > 0 && (i === 0 || index > order[i - 1]!)),
        `flow tree:\n${shown.stdout}`,
      );
      assert.match(shown.stdout, /^flow of 3 captures across 3 services/);
      const json = JSON.parse((await c.services.app.cli(['show', from, '--flow', '--json'])).stdout) as {
        root: { id: string; calls: Array<{ answer?: { id: string } }> };
      };
      assert.equal(json.root.id, gateway!.id);
      assert.equal(json.root.calls[0]!.answer!.id, orders!.id);
    }

    // The same tree through MCP within a small token budget; the list by service; rows by what answered them.
    const mcp = await connectMcp(c.services.app);
    const flow = await mcp.call('probe-show', { id: inventory!.id, flow: true, max_tokens: 1000 });
    assert.equal(flow.isError, undefined, flow.text);
    assert.ok(flow.text.length <= 1000 * 4, 'within the token budget');
    assert.equal(flow.json.root.id, gateway!.id);
    assert.equal(flow.json.root.calls[0].answer.calls[0].answer.id, inventory!.id);
    assert.equal(flow.json.root.calls[0].answer.calls[0].answer.service, 'inventory');
    const listed = await mcp.call('probe-list', { service: 'orders' });
    assert.deepEqual(
      listed.json.captures.map((row: { id: string }) => row.id),
      [orders!.id],
    );
    await mcp.close();
    const rows = await c.services.app.cli(['rows', '*', '--where', `answered_by = ${orders!.id}`, '--fields', 'url,answered_by', '--json']);
    assert.equal(rows.code, 0, rows.stderr);
    const found = (JSON.parse(rows.stdout) as { rows: Array<{ capture_id: string; answered_by: string }> }).rows;
    assert.deepEqual(
      found.map((row) => [row.capture_id, row.answered_by]),
      [[gateway!.id, orders!.id]],
    );

    // probe clear takes the link notes with the captures.
    assert.equal((await c.services.app.cli(['clear'])).code, 0);
    if (redis) assert.equal((await redis.cli('--scan', '--pattern', '*link:*')).trim(), '');
    else assert.deepEqual(readdirSync(path.join(c.services.root, '.probe', 'links', 'captures')), []);
  });
}

test('probe diff --flow compares two flows service by service', LIMIT, async () => {
  const c = await chain();
  await getJson(`${c.gateway}checkout?tag=first`);
  const first = await capturesOf(c, 3);
  await getJson(`${c.gateway}checkout?tag=second`);
  const all = await capturesOf(c, 6);
  const gateways = all.filter((capture) => capture.service === 'gateway').sort((a, b) => a.started_at - b.started_at);
  assert.equal(first.length, 3);
  const diff = await c.services.app.cli(['diff', gateways[0]!.id, gateways[1]!.id, '--flow', '--json']);
  const result = JSON.parse(diff.stdout) as { services: Array<{ service: string; before: string; after: string; diff: { changed: unknown[] } }> };
  assert.deepEqual(
    result.services.map((entry) => entry.service),
    ['gateway', 'orders', 'inventory'],
  );
  const ids = new Set(all.map((capture) => capture.id));
  for (const entry of result.services) assert.ok(ids.has(entry.before) && ids.has(entry.after) && entry.diff, entry.service);
  // Gateway's and orders' calls went out with another tag (a URL changed), said per service; inventory made no call.
  const text = await c.services.app.cli(['diff', gateways[0]!.id, gateways[1]!.id, '--flow']);
  assert.equal(text.code, 1, text.stderr);
  for (const service of ['gateway', 'orders']) assert.match(text.stdout, new RegExp(`^\\[${service}\\] different`, 'm'));
  assert.match(text.stdout, /^\[inventory\] same/m);
});

test('50 concurrent requests through the gateway on keep-alive connections: each call linked to its own answer, none crossed', LIMIT, async () => {
  const c = await chain();
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => getJson(`${c.gateway}checkout?tag=t${i}`)));
  assert.ok(answers.every((answer) => answer.status === 200));
  const captures = await capturesOf(c, 150);
  // Connections were reused: some call went out as a later request on its connection.
  assert.ok(captures.some((capture) => (capture.sections.http ?? []).some((row) => (row.connection?.order ?? 0) > 1)));
  assertLinked(captures, 100);
});

test("with the app's own OpenTelemetry propagation, every link agrees with the traceparent the call sent", LIMIT, async () => {
  const c = await chain({ env: { APP_OTEL: '1' } });
  await Promise.all(Array.from({ length: 10 }, (_, i) => getJson(`${c.gateway}checkout?tag=o${i}`)));
  const captures = await capturesOf(c, 30);
  assertLinked(captures, 20);
  const byId = new Map(captures.map((capture) => [capture.id, capture]));
  let checked = 0;
  for (const capture of captures) {
    for (const row of capture.sections.http ?? []) {
      const sent = row.request_headers.traceparent;
      assert.ok(sent, 'the app propagated a traceparent');
      assert.equal(byId.get(row.answered_by!)!.sections.request!.headers.traceparent, sent);
      checked++;
    }
  }
  assert.equal(checked, 20);
});

test('a service that is not recorded leaves its caller’s call unlinked, and its callee’s capture without a cause', LIMIT, async () => {
  const c = await chain({ ordersRecorded: false });
  await getJson(`${c.gateway}checkout?tag=gap`);
  const captures = await capturesOf(c, 2);
  assert.deepEqual(captures.map((capture) => capture.service).sort(), ['gateway', 'inventory']);
  for (const capture of captures) {
    assert.equal(capture.caused_by, undefined);
    for (const row of capture.sections.http ?? []) assert.equal(row.answered_by, undefined);
  }
  const shown = await c.services.app.cli(['show', captures.find((capture) => capture.service === 'gateway')!.id, '--flow']);
  assert.match(shown.stdout, /^flow of 1 capture across 1 service/);
});

test('a service in another language, sending OTLP spans to probe collect, is a node of the tree, linked by traceparent', LIMIT, async () => {
  const services = new Services({ APP_OTEL: '1' });
  const collector = await startCollector(services.app);
  const inventory = await services.start('inventory');
  const pricing = await startForeign(services, 'pricing', 'python3', [path.join(__dirname, 'pricing.py')], {
    NEXT: inventory.url + 'stock',
    COLLECTOR: collector.url,
  });
  const gateway = await services.start('gateway', { next: [pricing.url + 'price'] });
  const store = new FileStore({ path: path.join(services.root, '.probe', 'captures'), limit: 1000, within: path.join(services.root, '.probe') });
  assert.equal((await getJson(`${gateway.url}checkout?tag=py`)).status, 200);
  const c: Chain = {
    services,
    gateway: gateway.url,
    store,
    alive: () => [inventory, pricing, gateway].every((service) => service.child.exitCode === null) && collector.child.exitCode === null,
  };
  const captures = await capturesOf(c, 3);
  const byService = Object.fromEntries(captures.map((capture) => [capture.service, capture])) as Record<string, Capture>;
  assert.deepEqual(Object.keys(byService).sort(), ['gateway', 'inventory', 'pricing']);
  assert.equal(byService.gateway!.sections.http![0]!.answered_by, byService.pricing!.id);
  assert.deepEqual(byService.pricing!.caused_by, { capture: byService.gateway!.id, row: 0 });
  assert.equal(byService.pricing!.sections.http![0]!.answered_by, byService.inventory!.id);
  assert.deepEqual(byService.inventory!.caused_by, { capture: byService.pricing!.id, row: 0 });
  const shown = await services.app.cli(['show', byService.inventory!.id, '--flow']);
  assert.match(shown.stdout, /^\* \[gateway\] GET \/checkout/m);
  assert.match(shown.stdout, /^ {4}\* \[pricing\] GET \/price/m);
  assert.match(shown.stdout, /^ {8}\* \[inventory\] GET \/stock/m);
  await collector.stop();
});
