// A checkout under the preload sends card numbers under names no rule lists (`card.number`, `card[number]`, `pan`, a
// query value, a header), as strings, grouped, and as a JSON number; the upstream echoes each body back. No file
// Probe wrote, no HAR and no MSW export holds one; the numbers beside them that only look like cards stay readable.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';

const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
const post = (path, type, body) => fetch(U + path, { method: 'POST', headers: { 'content-type': type }, body }).then((r) => r.text());
(async () => {
  await post('/checkout', 'application/json', JSON.stringify({
    card: { number: '4242424242424242', cvc: '123', exp: '12/30' }, amount: 1999, created_ms: 1733580000000, order_id: '4242424242424241',
  }));
  await new Promise((resolve, reject) => {
    const req = http.request(U + '/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
      res.resume(); res.on('end', resolve);
    });
    req.on('error', reject);
    req.end('card[number]=5555+5555+5555+4444&card[exp]=12%2F30');
  });
  await post('/pan', 'application/json', '{"pan": 6011111111111117, "ts": 1733580000000123}');
  await fetch(U + '/lookup?pan=378282246310005&page=2', { headers: { 'x-card': '3566-0020-2036-0505' } }).then((r) => r.text());
  console.log('done');
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

/** Every card sent, as its digits: no stored text may hold one, however written (grouped forms hold these too). */
const DIGITS = ['4242424242424242', '5555555555554444', '6011111111111117', '378282246310005', '3566002020360505'];
const GROUPED = ['5555+5555+5555+4444', '5555 5555 5555 4444', '3566-0020-2036-0505'];

function leaks(text: string): string[] {
  return [...DIGITS, ...GROUPED].filter((card) => text.includes(card));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => path.join(f.parentPath, f.name));
}

let server: http.Server;
let upstream = '';
before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'text/plain', 'x-card': String(req.headers['x-card'] ?? '') });
      res.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('card numbers never reach the store, the HAR or the MSW export, whatever they are called', async () => {
  const app = new TestApp({ 'app.js': APP, 'probe.config.js': 'module.exports = { lenses: { HttpClientLens: { bodies: true } } };' });
  const run = await app.run('app.js', { env: { UPSTREAM: upstream } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'done');

  const rows = (app.captures().find((c) => c.type === 'command')?.sections.http ?? []) as HttpRow[];
  assert.equal(rows.length, 4);
  const [checkout, form, pan, lookup] = rows;
  const payload = checkout!.request_payload as { card: Record<string, unknown>; created_ms: number; order_id: string; amount: number };
  assert.deepEqual(payload.card, { number: '********', cvc: '********', exp: '12/30' });
  // What only looks like a card stays: a time in ms, a wrong check digit, an amount.
  assert.equal(payload.created_ms, 1733580000000);
  assert.equal(payload.order_id, '4242424242424241');
  assert.equal(payload.amount, 1999);
  assert.deepEqual((checkout!.response_capture!.cards as { card: unknown }).card, payload.card);
  assert.match(form!.request_body!, /^card%5Bnumber%5D=\*{8}&card%5Bexp%5D=12%2F30$/);
  assert.deepEqual(pan!.request_payload, { pan: '********', ts: 1733580000000123 });
  assert.match(lookup!.url, /\?pan=\*{8}&page=2$/);
  assert.equal(lookup!.request_headers['x-card'], '********');
  assert.equal(lookup!.response_headers['x-card'], '********');

  const stored = filesUnder(path.join(app.dir, '.probe')).flatMap((file) => leaks(readFileSync(file, 'utf8')).map((card) => `${file}: ${card}`));
  assert.deepEqual(stored, [], 'no stored file holds a card number');
  const har = await app.cli(['export', '--har']);
  assert.equal(har.code, 0, har.stderr);
  assert.equal(JSON.parse(har.stdout).log.entries.length, 4);
  assert.deepEqual(leaks(har.stdout), [], 'nor does the HAR export');
  const msw = await app.cli(['export', '--msw', '--out', 'handlers.mjs']);
  assert.equal(msw.code, 0, msw.stderr);
  const handlers = readFileSync(path.join(app.dir, 'handlers.mjs'), 'utf8');
  assert.match(handlers, /checkout/);
  assert.deepEqual(leaks(handlers), [], 'nor does the MSW export');
});
