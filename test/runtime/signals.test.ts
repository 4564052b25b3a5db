// Issue 26.3 and 26.5: a closed terminal (SIGHUP) and nodemon's restart (SIGUSR2) keep what the process recorded,
// with the app's own handlers and exit unchanged; a helper process a tool started that made no call stores nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { TestApp, waitForLine, collect } from '../helpers/app';
import { startOkServer } from '../helpers/upstream';

let upstream: Awaited<ReturnType<typeof startOkServer>>;
let target = '';

before(async () => {
  upstream = await startOkServer();
  target = upstream.url;
});
after(() => upstream.close());

const READY = 120_000; // the preload's start on a loaded machine; the wait ends at the line, not the limit
const BACKGROUND = `fetch(process.env.TARGET).then((r) => r.text()).then(() => console.log('ready'));
setInterval(() => {}, 1000);
`;

for (const [signal, number] of [
  ['SIGHUP', 1],
  ['SIGUSR2', 12],
] as const) {
  test(`${signal} with no app handler: the process dies of it as without Probe, its calls kept`, async (t) => {
    const app = new TestApp({ 'server.js': BACKGROUND });
    const child = app.spawn('server.js', { env: { TARGET: target } });
    t.after(() => child.kill('SIGKILL'));
    const result = collect(child, READY);
    await waitForLine(child, /ready/, READY);
    child.kill(signal);
    const { code, signal: died, stderr } = await result;
    assert.equal(code, null, stderr);
    assert.equal(died, signal);
    const [capture] = app.captures();
    assert.ok(capture, `a command capture at ${signal}`);
    assert.equal(capture.status, String(128 + number));
    assert.equal(capture.sections.http!.length, 1);
  });
}

test("nodemon's documented SIGUSR2 handler (clean up, then re-raise) runs, and the calls are kept", async (t) => {
  const app = new TestApp({
    'server.js': `process.once('SIGUSR2', () => { console.log('app cleanup'); process.kill(process.pid, 'SIGUSR2'); });
${BACKGROUND}`,
  });
  const child = app.spawn('server.js', { env: { TARGET: target } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY);
  await waitForLine(child, /ready/, READY);
  child.kill('SIGUSR2');
  const { signal, stdout, stderr } = await result;
  assert.equal(signal, 'SIGUSR2', stderr);
  assert.match(stdout, /app cleanup/);
  assert.equal(app.captures().length, 1);
  assert.equal(app.captures()[0]!.sections.http!.length, 1);
});

test('an app handler for SIGHUP keeps the decision (and the exit code) to the app', async (t) => {
  const app = new TestApp({ 'server.js': `process.on('SIGHUP', () => process.exit(9));\n${BACKGROUND}` });
  const child = app.spawn('server.js', { env: { TARGET: target } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY);
  await waitForLine(child, /ready/, READY);
  child.kill('SIGHUP');
  const { code, stderr } = await result;
  assert.equal(code, 9, stderr);
  assert.equal(app.captures()[0]!.status, '9');
});

test("a tool's helper process that made no call stores nothing; one that made a call is kept", async () => {
  const quiet = `console.log('helper done');\n`;
  const app = new TestApp({
    // A script inside a package (as jest-worker's processChild.js and Next.js's telemetry flusher are).
    'vendor/node_modules/some-tool/worker.js': quiet,
    'fork.js': `const { fork } = require('node:child_process');
const child = fork(process.argv[2], { env: process.env });
child.on('exit', (code) => { process.exitCode = code; });
`,
    'pool-quiet.js': `process.send?.('hi'); process.disconnect?.();\n`,
    'pool-busy.js': `fetch(process.env.TARGET).then((r) => r.text()).then(() => process.disconnect?.());\n`,
  });
  const inPackage = await app.run('vendor/node_modules/some-tool/worker.js');
  assert.equal(inPackage.code, 0, inPackage.stderr);
  assert.deepEqual(app.captures(), []);

  // A pool worker forked with an IPC channel: nothing when quiet; its call when it made one.
  const forkedQuiet = await app.run('fork.js', { args: ['pool-quiet.js'] });
  assert.equal(forkedQuiet.code, 0, forkedQuiet.stderr);
  const forkedBusy = await app.run('fork.js', { args: ['pool-busy.js'], env: { TARGET: target } });
  assert.equal(forkedBusy.code, 0, forkedBusy.stderr);
  const names = app.captures().map((c) => `${c.name}:${c.sections.http?.length ?? 0}`);
  assert.deepEqual(names, ['pool-busy.js:1']);
});

// Issue 26.3: SIGKILL runs no code of the process, so what it loses is what was not yet stored: background calls
// are stored by the checkpoint about a second after they end, requests when they end. Every call that ended more
// than 2 seconds before the kill is in the store (the test waits 3 s after the last one).
test('SIGKILL loses at most the last 2 seconds: background calls and requests that ended before are stored', async (t) => {
  const app = new TestApp({
    'server.js': `const http = require('node:http');
let n = 0;
let ended = 0;
const poller = setInterval(async () => {
  const i = n++;
  if (i === 4) clearInterval(poller);
  await fetch(process.env.TARGET + 'poll?n=' + i).then((r) => r.text());
  if (++ended === 5) console.log('polled');
}, 100);
const server = http.createServer(async (req, res) => {
  await fetch(process.env.TARGET + 'from-request' + req.url.slice(1)).then((r) => r.text());
  res.end('done');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`,
  });
  const child = app.spawn('server.js', { env: { TARGET: target } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY);
  const listening = waitForLine(child, /listening (\d+)/, READY);
  await waitForLine(child, /polled/, READY);
  const [, port] = await listening;
  for (const n of [1, 2, 3]) await fetch(`http://127.0.0.1:${port}/?r=${n}`).then((r) => r.text());
  // The last call ended before its response came back: 3 s from here is more than 2 s from its end.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  child.kill('SIGKILL');
  const { signal, stderr } = await result;
  assert.equal(signal, 'SIGKILL', stderr);

  const paths = (c: { sections: { http?: Array<{ url: string }> } }) =>
    (c.sections.http ?? []).map((row) => new URL(row.url).pathname + new URL(row.url).search);
  const background = app.captures().filter((c) => c.type === 'command');
  assert.equal(background.length, 1, stderr);
  assert.equal(background[0]!.status, 'running', 'the live version: nothing ran at the kill');
  assert.deepEqual(paths(background[0]!).sort(), ['/poll?n=0', '/poll?n=1', '/poll?n=2', '/poll?n=3', '/poll?n=4']);
  const requests = app.captures().filter((c) => c.type === 'request');
  assert.deepEqual(requests.flatMap(paths).sort(), ['/from-request?r=1', '/from-request?r=2', '/from-request?r=3']);
});
