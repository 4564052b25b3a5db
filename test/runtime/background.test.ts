// Issue 26.1: calls a long-lived process makes outside any request, job or test (a poller, a token refresh) are in
// the store while it runs, in its command capture (never a request's), stored whole per window so a poller cannot
// push other captures out; the final version at exit replaces the live one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { TestApp, waitForLine, eventually, collect } from '../helpers/app';
import { startOkServer } from '../helpers/upstream';

let upstream: Awaited<ReturnType<typeof startOkServer>>;
let target = '';

before(async () => {
  upstream = await startOkServer();
  target = upstream.url;
});
after(() => upstream.close());

const READY = 120_000; // the preload's start on a loaded machine; waits end at the line, not the limit
const SEEN = 30_000;

const SERVER = `const http = require('node:http');
let n = 0;
const poll = () => fetch(process.env.TARGET + 'poll?n=' + n++).then((r) => r.text());
setInterval(poll, Number(process.env.EVERY));
const server = http.createServer(async (req, res) => {
  await fetch(process.env.TARGET + 'from-request').then((r) => r.text());
  res.end('done');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => { console.log('polls ' + n); server.close(); process.exit(0); });
`;

const urls = (rows: Array<{ url: string }> | undefined) => (rows ?? []).map((row) => new URL(row.url).pathname + new URL(row.url).search);

test('a poller is seen while the server runs, apart from its requests, and the final capture replaces the live one', async (t) => {
  const app = new TestApp({ 'server.js': SERVER });
  const child = app.spawn('server.js', { env: { TARGET: target, EVERY: '300' } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY * 2);
  const [, port] = await waitForLine(child, /listening (\d+)/, READY);

  const live = await eventually(() => app.captures().find((c) => c.type === 'command' && (c.sections.http?.length ?? 0) >= 2), SEEN);
  // What a person or an agent reads while the server runs.
  const listed = await app.cli(['list', '--json', '--type', 'command']);
  const rows = (JSON.parse(listed.stdout) as { captures: Array<{ id: string; name: string; status: string }> }).captures;
  assert.deepEqual(
    rows.map((row) => [row.name, row.status]),
    [['server.js', 'running']],
    listed.stderr,
  );
  assert.equal(live.name, 'server.js');
  assert.equal(live.status, 'running');
  assert.ok(urls(live.sections.http).every((url) => url.startsWith('/poll')));

  await fetch(`http://127.0.0.1:${port}/page`).then((r) => r.text());
  const request = await eventually(() => app.captures().find((c) => c.type === 'request'), SEEN);
  assert.deepEqual(urls(request.sections.http), ['/from-request']);

  child.kill('SIGTERM');
  const { stdout, stderr } = await result;
  const made = Number(/polls (\d+)/.exec(stdout)?.[1]);
  const commands = app.captures().filter((c) => c.type === 'command');
  assert.equal(commands.length, 1, 'one command capture: the live one was replaced');
  assert.equal(commands[0]!.id, live.id);
  assert.equal(commands[0]!.status, '0', stderr);
  assert.ok(commands[0]!.sections.http!.length <= made && commands[0]!.sections.http!.length >= live.sections.http!.length);
  assert.ok(!urls(commands[0]!.sections.http).includes('/from-request'));
});

test('past background.window_seconds a window is stored whole and the next begins: each call in exactly one window', async (t) => {
  const app = new TestApp({ 'server.js': SERVER, 'probe.config.cjs': `module.exports = { background: { window_seconds: 1 } };\n` });
  const child = app.spawn('server.js', { env: { TARGET: target, EVERY: '50' } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY * 2);
  await waitForLine(child, /listening (\d+)/, READY);
  // Two windows stored whole, and the one open now seen with calls (its `running` version, or a third window):
  // stopped right after a rotation, before the poller's next call, the open window would be empty and not kept.
  await eventually(() => {
    const commands = app.captures().filter((c) => c.type === 'command');
    return commands.filter((c) => c.status === 'window').length >= 2 && commands.length >= 3;
  }, SEEN);
  child.kill('SIGTERM');
  const { stdout, stderr } = await result;
  assert.match(stdout, /polls \d+/, stderr);

  const windows = app.captures().filter((c) => c.type === 'command');
  assert.ok(windows.length >= 3, `${windows.length} windows`);
  const seen = windows.flatMap((c) => urls(c.sections.http));
  assert.equal(new Set(seen).size, seen.length, 'no call in two windows');
  for (const window of windows.filter((c) => c.status === 'window')) {
    assert.ok(window.sections.http!.length > 1, 'a window holds many calls, never one capture per call');
    assert.equal(window.name, 'server.js');
  }
  // The windows follow one another: call numbers only grow from one window to the next.
  const numbers = windows.flatMap((c) => urls(c.sections.http).map((url) => Number(new URLSearchParams(url.split('?')[1]).get('n'))));
  assert.deepEqual(
    numbers,
    [...numbers].sort((a, b) => a - b),
  );
});
