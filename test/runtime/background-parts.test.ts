// The process's command capture is stored every second while it runs, and its window whole when it
// rotates; the app's thread hands the store's thread only the calls that ended since the previous version (their
// bodies copied once), the thread keeping the window's earlier ones. A poller past max_rows across many versions:
// every window and the final version hold every call exactly once (rows in order, the rest counted past the cap,
// totals), each row with its own body; and, from PROBE_DEBUG's line per version handed in parts, each row's
// bodies were handed over once, and none of a call past the cap (a call's bytes are counted, never timed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestApp, waitForLine, eventually, collect } from '../helpers/app';

/** Each answer holds its call's number, padded to a known size. */
const PAD = 2000;
/** Bodies past 64 KiB in a version start the store's thread at once. */
const BIG = 20_000;
const answer = (n: string, pad = PAD) => JSON.stringify({ n: Number(n), pad: 'p'.repeat(pad) });

let upstream: http.Server;
let target = '';
before(async () => {
  upstream = http.createServer((req, res) => {
    const query = new URL(req.url!, 'http://x').searchParams;
    res.setHeader('content-type', 'application/json');
    res.end(answer(query.get('n') ?? '-1', query.get('size') === 'big' ? BIG : PAD));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
});
after(() => upstream.close());

const READY = 120_000;
const SEEN = 60_000;
// Rows enough that their bodies (2 kB each) pass the 64 KiB that starts the store's thread: calls past the cap keep none.
const MAX_ROWS = 40;

const SERVER = `let n = 0;
const poll = () => fetch(process.env.TARGET + 'poll?n=' + n++).then((r) => r.text());
setInterval(poll, 40);
setInterval(() => {}, 1000);
console.log('started');
process.on('SIGTERM', () => { console.log('polls ' + n); process.exit(0); });
`;

const numberOf = (url: string) => Number(new URL(url).searchParams.get('n'));

test('a poller across many versions: each window and the final one hold every call once, each body handed over once', { timeout: 300_000 }, async (t) => {
  const app = new TestApp({
    'server.js': SERVER,
    'probe.config.cjs': `module.exports = { background: { window_seconds: 3 }, lenses: { HttpClientLens: { bodies: true, max_rows: ${MAX_ROWS} } } };\n`,
  });
  const child = app.spawn('server.js', { env: { TARGET: target, PROBE_DEBUG: '1' } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY * 2);
  await waitForLine(child, /started/, READY);
  await eventually(() => {
    const commands = app.captures().filter((c) => c.type === 'command');
    return commands.filter((c) => c.status === 'window').length >= 2 && commands.length >= 3;
  }, SEEN);
  child.kill('SIGTERM');
  const { stdout, stderr } = await result;
  const made = Number(/polls (\d+)/.exec(stdout)?.[1]);
  assert.ok(made > 0, stderr.slice(-2000));

  const windows = app.captures().filter((c) => c.type === 'command');
  assert.ok(windows.length >= 3, `${windows.length} windows`);
  assert.deepEqual(
    windows.map((c) => c.status),
    [...windows.slice(0, -1).map(() => 'window'), '0'],
  );
  // Rows: the first max_rows calls of each window, in order; the rest counted past the cap; totals count both.
  let next = 0;
  for (const window of windows) {
    const rows = window.sections.http ?? [];
    const dropped = window.summary.dropped_rows ?? 0;
    assert.ok(rows.length <= MAX_ROWS);
    if (dropped) assert.equal(rows.length, MAX_ROWS);
    assert.deepEqual(
      rows.map((row) => numberOf(row.url)),
      rows.map((_, i) => next + i),
      `window ${window.id} starts where the previous ended`,
    );
    assert.equal(window.summary.totals?.http_calls, rows.length + dropped);
    for (const row of rows.filter((r) => r.status === 200)) {
      assert.equal(row.response_capture?.raw, answer(String(numberOf(row.url))), 'each row holds its own body');
    }
    next += rows.length + dropped;
  }
  assert.equal(next, made, 'every call the poller made is in exactly one window');
  assert.ok(
    windows.some((c) => (c.summary.dropped_rows ?? 0) > 0),
    'a window went past max_rows',
  );

  // PROBE_DEBUG: a line per version handed in parts, its new calls and their body bytes.
  const parts = [...stderr.matchAll(/unit (\S+) handed in parts: (\d+) new call\(s\) of (\d+), (\d+) body bytes/g)];
  const byUnit = new Map<string, { calls: number; bytes: number; versions: number }>();
  for (const [, id, fresh, , bytes] of parts) {
    const seen = byUnit.get(id!) ?? { calls: 0, bytes: 0, versions: 0 };
    seen.calls += Number(fresh);
    seen.bytes += Number(bytes);
    seen.versions++;
    byUnit.set(id!, seen);
  }
  assert.ok(
    [...byUnit.values()].some((unit) => unit.versions >= 3),
    'some window went to the thread in 3 parts or more',
  );
  for (const window of windows) {
    const handed = byUnit.get(window.id);
    if (!handed) continue; // built on the app's thread (before the store's thread started)
    const ended = window.sections.http ?? [];
    // Calls past the cap may have been handed before they were folded; every row's call was handed once.
    assert.ok(handed.calls >= ended.length, `${window.id}: ${handed.calls} calls handed, ${ended.length} rows`);
    assert.ok(handed.calls <= (window.summary.totals?.http_calls ?? 0), `${window.id}: no call handed twice`);
    const size = Buffer.byteLength(answer('0')) - 1; // one digit less than the average: bound below by digits
    // Only a row's call keeps its body (a call started past the cap is only counted), each handed once. The final
    // version may hand calls still in flight at exit, their bodies not all there (the poller's interval does not wait
    // for a call to end: under load a few overlap).
    const withBodies = Math.min(handed.calls, ended.length);
    const inFlight = 3;
    assert.ok(
      handed.bytes >= (withBodies - inFlight) * size && handed.bytes <= withBodies * (size + 8),
      `${window.id}: ${handed.bytes} bytes for ${handed.calls} calls, ${ended.length} rows`,
    );
  }
  assert.doesNotMatch(stderr, /could not|fell behind|lacks call|were lost/);
});

// The app kills the store's thread (Node's 'worker' event hands it over) once two versions written there are seen.
const KILLER = `const fs = require('node:fs');
const path = require('node:path');
let n = 0;
const poll = () => fetch(process.env.TARGET + 'poll?n=' + n++ + '&size=big').then((r) => r.text());
setInterval(poll, 40);
setInterval(() => {}, 1000);
const dir = path.join(process.cwd(), '.probe', 'captures');
const rowsNow = () => {
  try {
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const capture = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')).capture;
      if (capture.type === 'command') return (capture.sections.http || []).length;
    }
  } catch {}
  return 0;
};
process.on('worker', (worker) => {
  const seen = new Set([rowsNow()]);
  const watch = setInterval(() => {
    seen.add(rowsNow());
    if (seen.size < 3) return;
    clearInterval(watch);
    worker.terminate().then(() => console.log('killed ' + rowsNow()));
  }, 50);
});
console.log('started');
process.on('SIGTERM', () => { console.log('polls ' + n); process.exit(0); });
`;

test('the store thread killed mid-window: later versions are built whole on the app thread, the final one complete', { timeout: 300_000 }, async (t) => {
  const app = new TestApp({
    'server.js': KILLER,
    'probe.config.cjs': `module.exports = { background: { window_seconds: 600 }, lenses: { HttpClientLens: { bodies: true } } };\n`,
  });
  const child = app.spawn('server.js', { env: { TARGET: target, PROBE_DEBUG: '1' } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY * 2);
  await waitForLine(child, /started/, READY);
  const [, rows] = await waitForLine(child, /killed (\d+)/, READY);
  // A version stored after the thread died: built on the app's thread.
  await eventually(() => {
    const command = app.captures().find((c) => c.type === 'command');
    return command && (command.sections.http?.length ?? 0) > Number(rows) + 5;
  }, SEEN);
  child.kill('SIGTERM');
  const { stdout, stderr } = await result;
  const made = Number(/polls (\d+)/.exec(stdout)?.[1]);
  assert.match(stderr, /write thread stopped/);
  const before = stderr.slice(0, stderr.indexOf('write thread stopped'));
  assert.ok((before.match(/handed in parts/g) ?? []).length >= 2, 'versions went in parts before the thread died');
  assert.doesNotMatch(stderr.slice(stderr.indexOf('write thread stopped')), /handed in parts/, 'none after');

  const commands = app.captures().filter((c) => c.type === 'command');
  assert.equal(commands.length, 1);
  const final = commands[0]!;
  assert.equal(final.status, '0', stderr.slice(-2000));
  const calls = final.sections.http ?? [];
  assert.deepEqual(
    calls.map((row) => numberOf(row.url)),
    Array.from({ length: made }, (_, i) => i),
  );
  for (const row of calls.filter((r) => r.status === 200)) assert.equal(row.response_capture?.raw, answer(String(numberOf(row.url)), BIG));
});
