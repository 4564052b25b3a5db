// Issue 26: worker threads follow the main thread's rules; their captures name the thread's script under the
// process (`main.js › worker.js`), link to the capture that made the thread, and are kept when the thread ends by
// itself, by process.exit() inside it, by worker.terminate() (which runs none of its listeners) and when the
// process ends by SIGTERM while the thread still runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { TestApp, waitForLine, eventually, collect } from '../helpers/app';
import type { Capture } from '../../src/capture/types';
import { startOkServer } from '../helpers/upstream';

let upstream: Awaited<ReturnType<typeof startOkServer>>;
let target = '';

before(async () => {
  upstream = await startOkServer();
  target = upstream.url;
});
after(() => upstream.close());

const READY = 120_000; // the preload's start (in every thread) on a loaded machine; waits end at the line
const SEEN = 30_000;

const rowsOf = (capture: Capture | undefined) => (capture?.sections.http ?? []).map((row) => new URL(row.url).pathname);
const named = (app: TestApp, name: string) => app.captures().find((c) => c.name === name);

const THREADS = {
  // A one-shot thread: one call, then it ends by itself.
  'oneshot.js': `const { workerData } = require('node:worker_threads');
fetch(workerData + 'oneshot').then((r) => r.text());
`,
  // A long-lived thread: a call, then it idles until it is ended; says 'called' once its call is done.
  'long.js': `const { workerData, parentPort } = require('node:worker_threads');
fetch(workerData + 'long').then((r) => r.text()).then(() => parentPort.postMessage('called'));
setInterval(() => {}, 1000);
`,
  // Ends itself with process.exit(3) after its call.
  'exits.js': `const { workerData } = require('node:worker_threads');
fetch(workerData + 'exits').then((r) => r.text()).then(() => process.exit(3));
`,
  'quiet.js': `require('node:worker_threads').parentPort.postMessage('called');\n`,
};

const SERVER = `const http = require('node:http');
const { Worker } = require('node:worker_threads');
const TARGET = process.env.TARGET;
const thread = (file) => new Worker(require('node:path').join(__dirname, file), { workerData: TARGET });
const server = http.createServer((req, res) => {
  const worker = thread(req.url.slice(1) + '.js');
  // A long-lived thread's request is answered once its call is done; the others' once the thread has exited.
  worker.on('message', () => {
    if (req.url === '/long' || req.url === '/terminate') res.end('started');
  });
  worker.on('exit', (code) => {
    console.log(req.url.slice(1) + ' exited ' + code);
    if (!res.writableEnded) res.end('ended');
  });
  if (req.url === '/terminate') worker.on('message', () => worker.terminate().then((code) => console.log('terminate resolved ' + code)));
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

function serverApp(): TestApp {
  return new TestApp({ 'server.js': SERVER, ...THREADS, 'terminate.js': THREADS['long.js'] });
}

test('a thread made in a request: named after its script, linked to the request, kept when it ends, by exit() or terminate()', async (t) => {
  const app = serverApp();
  const child = app.spawn('server.js', { env: { TARGET: target } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY * 2);
  const [, port] = await waitForLine(child, /listening (\d+)/, READY);
  const base = `http://127.0.0.1:${port}`;

  await fetch(`${base}/oneshot`).then((r) => r.text());
  const oneshot = await eventually(() => named(app, 'server.js › oneshot.js'), SEEN);
  const request = await eventually(() => app.captures().find((c) => c.name === 'GET /oneshot'), SEEN);
  assert.equal(oneshot.parent_id, request.id);
  assert.equal(oneshot.status, '0');
  assert.deepEqual(rowsOf(oneshot), ['/oneshot']);

  await fetch(`${base}/exits`).then((r) => r.text());
  const exits = await eventually(() => named(app, 'server.js › exits.js'), SEEN);
  assert.equal(exits.status, '3');
  assert.deepEqual(rowsOf(exits), ['/exits']);

  await fetch(`${base}/terminate`).then((r) => r.text());
  const terminated = await eventually(() => named(app, 'server.js › terminate.js'), SEEN);
  assert.equal(terminated.status, '1', "a terminated thread's exit code");
  assert.deepEqual(rowsOf(terminated), ['/long']);

  await fetch(`${base}/quiet`).then((r) => r.text());
  child.kill('SIGTERM');
  const { stdout } = await result;
  assert.match(stdout, /terminate resolved 1/, 'terminate() still resolves with the exit code');
  assert.match(stdout, /quiet exited 0/);
  assert.equal(named(app, 'server.js › quiet.js'), undefined, 'a thread that made no call stores nothing');
});

for (const round of [1, 2, 3]) {
  test(`SIGTERM while a long-lived thread runs and just after a one-shot thread ended keeps both (round ${round})`, async (t) => {
    const app = serverApp();
    const child = app.spawn('server.js', { env: { TARGET: target } });
    t.after(() => child.kill('SIGKILL'));
    const result = collect(child, READY * 2);
    const [, port] = await waitForLine(child, /listening (\d+)/, READY);
    const base = `http://127.0.0.1:${port}`;
    await fetch(`${base}/long`).then((r) => r.text()); // answered once the thread's call is done
    await fetch(`${base}/oneshot`).then((r) => r.text()); // answered once the thread has exited
    child.kill('SIGTERM');
    const { signal, stderr } = await result;
    assert.equal(signal, 'SIGTERM', stderr);
    assert.deepEqual(rowsOf(named(app, 'server.js › long.js')), ['/long'], stderr);
    assert.equal(named(app, 'server.js › long.js')!.status, String(128 + 15));
    assert.deepEqual(rowsOf(named(app, 'server.js › oneshot.js')), ['/oneshot'], stderr);
  });
}

test("a long-lived thread's calls are in the store while it runs", async (t) => {
  const app = serverApp();
  const child = app.spawn('server.js', { env: { TARGET: target } });
  t.after(() => child.kill('SIGKILL'));
  const result = collect(child, READY * 2);
  const [, port] = await waitForLine(child, /listening (\d+)/, READY);
  await fetch(`http://127.0.0.1:${port}/long`).then((r) => r.text());
  const live = await eventually(() => named(app, 'server.js › long.js'), SEEN);
  assert.equal(live.status, 'running');
  assert.deepEqual(rowsOf(live), ['/long']);
  child.kill('SIGTERM');
  await result;
});

test('the app sees its threads as without Probe: the same answers, exit codes and terminate() result', async (t) => {
  const outputs: string[][] = [];
  for (const preload of ['none', 'require'] as const) {
    const app = serverApp();
    const child = app.spawn('server.js', { env: { TARGET: target }, preload });
    t.after(() => child.kill('SIGKILL'));
    const result = collect(child, READY * 2);
    let said = '';
    child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const [, port] = await waitForLine(child, /listening (\d+)/, READY);
    const answers: string[] = [];
    for (const path of ['/oneshot', '/exits', '/terminate', '/quiet']) {
      answers.push(`${path} ${await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.text())}`);
    }
    // The terminated and quiet threads' exits are said after their answers: wait for both before ending the server.
    await eventually(() => /terminate resolved 1/.test(said) && /quiet exited 0/.test(said), SEEN);
    child.kill('SIGTERM');
    const { stdout, signal } = await result;
    outputs.push([
      ...answers,
      ...stdout
        .split('\n')
        .filter((line) => line && !line.startsWith('listening'))
        .sort(),
      `signal ${signal}`,
    ]);
  }
  assert.deepEqual(outputs[1], outputs[0]);
});
