import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import { connectMcp } from '../helpers/mcp';

// Two runs of a real app under the preload against a loopback upstream. Between them the app's code changes
// (a call to /legacy becomes a call to /coupons) and the upstream changes (/stock answers 503, /price a new
// total). `probe diff` must report exactly those four things, in text, JSON and through the MCP client.
const APP = (middle: string) => `const UP = process.env.UP;
async function main() {
  await fetch(UP + '/cart').then((r) => r.json());
  ${middle}
  await fetch(UP + '/stock').then((r) => r.text());
  await fetch(UP + '/price', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sku: 'a1', password: 'hunter2' }) }).then((r) => r.json());
}
main();
`;
const V1 = APP("await fetch(UP + '/legacy').then((r) => r.text());");
const V2 = APP("await fetch(UP + '/coupons').then((r) => r.json());");

/** The line of `needle` in `source`, 1-based: where the app made that call (the oracle for code lines). */
function lineOf(source: string, needle: string): number {
  return source.split('\n').findIndex((line) => line.includes(needle)) + 1;
}

/** Durations are not asserted (a loaded machine varies them): the CLI runs are given a threshold no call reaches. */
const NO_TIMING = ['--threshold-ms', '600000'];

describe('probe diff on two runs of a real app', () => {
  let phase = 1;
  let upstream: http.Server;
  let UP = '';
  before(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.url === '/cart') return json(200, { items: 2, token: 'cart-secret-1' });
        if (req.url === '/legacy') return res.writeHead(200, { 'content-type': 'text/plain' }).end('old');
        if (req.url === '/coupons') return json(200, { coupons: [] });
        if (req.url === '/stock') return json(phase === 1 ? 200 : 503, { sku: 'a1' });
        if (req.url === '/price') return json(200, { total: phase === 1 ? 10 : 12, currency: 'EUR' });
        json(404, {});
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    UP = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  test('added, removed, a status and a response field: text, JSON, exit codes and the MCP tool', async () => {
    phase = 1;
    const app = new TestApp({ 'app.js': V1 });
    assert.equal((await app.run('app.js', { env: { UP } })).code, 0);
    phase = 2;
    app.write('app.js', V2);
    assert.equal((await app.run('app.js', { env: { UP } })).code, 0);
    const [first, second] = app.captures();
    assert.ok(first && second, 'two captures');

    const json = await app.cli(['diff', first.id, second.id, '--json', ...NO_TIMING]);
    assert.equal(json.code, 1, json.stderr);
    const result = JSON.parse(json.stdout);
    assert.equal(result.same, false);
    assert.equal(result.before.id, first.id);
    assert.equal(result.after.id, second.id);
    assert.equal(result.status, undefined, 'the command exited 0 both times');
    assert.deepEqual(
      result.removed.map((call: any) => [call.method, call.url, call.status, call.line]),
      [['GET', `${UP}/legacy`, 200, `app.js:${lineOf(V1, '/legacy')}`]],
    );
    assert.deepEqual(
      result.added.map((call: any) => [call.method, call.url, call.status, call.line]),
      [['GET', `${UP}/coupons`, 200, `app.js:${lineOf(V2, '/coupons')}`]],
    );
    assert.deepEqual(result.repeated, []);
    assert.equal(result.matched, 3);
    assert.deepEqual(
      result.changed.map(({ before_row, after_row, ...change }: any) => (assert.ok(before_row >= 0 && after_row >= 0), change)),
      [
        { method: 'GET', endpoint: `GET ${UP}/stock`, line: `app.js:${lineOf(V2, '/stock')}`, status: { before: 200, after: 503 } },
        { method: 'POST', endpoint: `POST ${UP}/price`, line: `app.js:${lineOf(V2, '/price')}`, response: [{ path: '$.total', before: 10, after: 12 }] },
      ],
    );
    assert.doesNotMatch(json.stdout, /hunter2|cart-secret/, 'masked values stay masked');

    const text = await app.cli(['diff', first.id, second.id, ...NO_TIMING]);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, new RegExp(`^- removed GET ${UP}/legacy {2}200 {2}app\\.js:${lineOf(V1, '/legacy')}`, 'm'));
    assert.match(text.stdout, new RegExp(`^\\+ added {3}GET ${UP}/coupons {2}200 {2}app\\.js:${lineOf(V2, '/coupons')}`, 'm'));
    assert.match(text.stdout, /^ {4}status: 200 → 503$/m);
    assert.match(text.stdout, /^ {4}response \$\.total: 10 → 12$/m);
    assert.match(text.stdout, /threshold of 600000 ms and 50 %/);
    assert.match(text.stdout, /3 calls aligned, 1 added, 1 removed, 2 changed: different$/m);

    const byName = await app.cli(['diff', '--name', 'app.js', '--json', ...NO_TIMING]);
    assert.equal(byName.code, 1, byName.stderr);
    assert.deepEqual(JSON.parse(byName.stdout).changed, result.changed, '--name takes the newest two of that name');
    const self = await app.cli(['diff', second.id, second.id]);
    assert.equal(self.code, 0, self.stdout);
    assert.match(self.stdout, /: same$/m);
    const bad = await app.cli(['diff', first.id]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);

    const mcp = await connectMcp(app);
    try {
      for (const compareTo of [first.id, 'previous']) {
        const shown = await mcp.call('probe-show', { id: second.id, compare_to: compareTo });
        assert.equal(shown.isError, undefined, shown.text);
        const compare = shown.json.compare;
        assert.equal(compare.before.id, first.id);
        assert.deepEqual(
          compare.added.map((call: any) => call.url),
          [`${UP}/coupons`],
        );
        assert.deepEqual(
          compare.removed.map((call: any) => call.url),
          [`${UP}/legacy`],
        );
        // Timing is not asserted: a call whose only change is its duration (a loaded machine) is left aside.
        const changed = compare.changed.filter((change: any) =>
          Object.keys(change).some((key) => !['before_row', 'after_row', 'method', 'endpoint', 'line', 'duration'].includes(key)),
        );
        assert.deepEqual(
          changed.map((change: any) => [change.endpoint, change.status ?? null, change.response ?? null]),
          [
            [`GET ${UP}/stock`, { before: 200, after: 503 }, null],
            [`POST ${UP}/price`, null, [{ path: '$.total', before: 10, after: 12 }]],
          ],
        );
      }
    } finally {
      await mcp.close();
    }
  });

  test('a baseline survives storage.limit trimming and compares; its file is private', async () => {
    phase = 1;
    const app = new TestApp({ 'app.js': V1, 'probe.config.json': JSON.stringify({ storage: { limit: 2 } }) });
    assert.equal((await app.run('app.js', { env: { UP } })).code, 0);
    const [kept] = app.captures();
    const saved = await app.cli(['baseline', 'save', kept!.id, 'checkout']);
    assert.equal(saved.code, 0, saved.stderr);
    const file = path.join(app.dir, '.probe', 'baselines', 'checkout.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    for (let run = 0; run < 3; run++) assert.equal((await app.run('app.js', { env: { UP } })).code, 0);
    assert.ok(!app.captures().some((capture) => capture.id === kept!.id), 'the limit removed the saved capture from the store');
    assert.equal(app.captures().length, 2);
    assert.equal((await app.cli(['show', kept!.id])).code, 2);

    const listed = await app.cli(['baseline', 'list', '--json']);
    assert.deepEqual(
      JSON.parse(listed.stdout).baselines.map((entry: any) => [entry.name, entry.id, entry.capture_name]),
      [['checkout', kept!.id, 'app.js']],
    );
    const same = await app.cli(['diff', '--baseline', 'checkout', ...NO_TIMING]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /^baseline checkout = /);

    phase = 2;
    assert.equal((await app.run('app.js', { env: { UP } })).code, 0);
    const changed = await app.cli(['diff', '--baseline', 'checkout', '--json', ...NO_TIMING]);
    assert.equal(changed.code, 1);
    const result = JSON.parse(changed.stdout);
    assert.equal(result.before.baseline, 'checkout');
    assert.deepEqual(
      result.changed.map((change: any) => change.endpoint),
      [`GET ${UP}/stock`, `POST ${UP}/price`],
    );
    assert.equal((await app.cli(['diff', '--baseline', 'nope'])).code, 2);
    assert.equal((await app.cli(['baseline', 'rm', 'checkout'])).code, 0);
    assert.deepEqual(JSON.parse((await app.cli(['baseline', 'list', '--json'])).stdout).baselines, []);
  });
});
