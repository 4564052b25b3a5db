// A thread the app gives its own environment (`env: { ...process.env, KEY }`, the everyday way to pass it a
// setting) is named like any other, `<process> › <thread script>`, and links to the capture that made it; the
// environment the thread sees is the one it gets without Probe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp, eventually } from '../helpers/app';
import { startOkServer } from '../helpers/upstream';
import type { Capture } from '../../src/capture/types';

let upstream: Awaited<ReturnType<typeof startOkServer>>;

before(async () => {
  upstream = await startOkServer();
});
after(() => upstream.close());

const FILES = {
  'main.js': `const path = require('node:path');
const { Worker } = require('node:worker_threads');
const worker = new Worker(path.join(__dirname, 'workers', 'resize.js'), { workerData: process.env.TARGET, env: { ...process.env, SIZE: '64' } });
worker.on('message', (seen) => console.log(JSON.stringify(seen)));
`,
  'workers/resize.js': `const { workerData, parentPort } = require('node:worker_threads');
fetch(workerData + 'resize').then((r) => r.text()).then(() => {
  parentPort.postMessage(Object.keys(process.env).filter((key) => key === 'SIZE' || key.startsWith('PROBE_')).sort());
});
`,
};

test("a thread given the app's own environment copy: `main.js › workers/resize.js`, linked to its maker; the thread's environment unchanged", async () => {
  const app = new TestApp(FILES);
  const alone = await app.run('main.js', { preload: 'none', env: { TARGET: upstream.url } });
  assert.equal(alone.code, 0, alone.stderr);
  const withProbe = await app.run('main.js', { env: { TARGET: upstream.url } });
  assert.equal(withProbe.code, 0, withProbe.stderr);
  assert.equal(withProbe.stdout, alone.stdout, 'the thread sees the environment it sees without Probe');
  const pathsOf = (capture: Capture) => (capture.sections.http ?? []).map((row) => new URL(row.url).pathname);
  const thread = await eventually(() => app.captures().find((capture) => pathsOf(capture).includes('/resize')));
  assert.equal(thread.name, 'main.js › workers/resize.js');
  assert.deepEqual(pathsOf(thread), ['/resize']);
  const maker = app.captures().find((capture) => capture.name === 'main.js');
  assert.ok(
    maker,
    `the process's own capture (got ${app
      .captures()
      .map((capture) => capture.name)
      .join(', ')})`,
  );
  assert.equal(thread.parent_id, maker.id);
});

// A thread made by a thread is named under its maker's full name; a thread that threw ends with the exit code the
// app's `exit` listener sees (1), one that ended itself with process.exit(n) with n.
const NESTED = {
  'main.js': `const path = require('node:path');
const { Worker } = require('node:worker_threads');
for (const file of ['outer.js', 'throws.js']) {
  const worker = new Worker(path.join(__dirname, 'workers', file), { workerData: process.env.TARGET });
  worker.on('error', () => {});
  worker.on('exit', (code) => console.log(file + ' exited ' + code));
}
`,
  'workers/outer.js': `const path = require('node:path');
const { Worker, workerData } = require('node:worker_threads');
fetch(workerData + 'outer').then((r) => r.text()).then(() => {
  new Worker(path.join(__dirname, 'inner.js'), { workerData }).on('exit', (code) => console.log('inner.js exited ' + code));
});
`,
  'workers/inner.js': `const { workerData } = require('node:worker_threads');
fetch(workerData + 'inner').then((r) => r.text()).then(() => process.exit(3));
`,
  'workers/throws.js': `const { workerData } = require('node:worker_threads');
fetch(workerData + 'throws').then((r) => r.text()).then(() => {
  throw new Error('thrown in the thread');
});
`,
};

test("a thread's thread is named `main.js › workers/outer.js › workers/inner.js`; each thread's status is its exit code", async () => {
  const app = new TestApp(NESTED);
  const run = await app.run('main.js', { env: { TARGET: upstream.url } });
  assert.equal(run.code, 0, run.stderr);
  // The exit codes the app saw: the oracle for the threads' statuses.
  const codes = Object.fromEntries([...run.stdout.matchAll(/^(\S+) exited (\d+)$/gm)].map((match) => [match[1], match[2]]));
  assert.deepEqual(codes, { 'outer.js': '0', 'inner.js': '3', 'throws.js': '1' });
  const pathsOf = (capture: Capture) => (capture.sections.http ?? []).map((row) => new URL(row.url).pathname);
  const byCall = (name: string) => eventually(() => app.captures().find((capture) => pathsOf(capture).includes(name)));
  const outer = await byCall('/outer');
  const inner = await byCall('/inner');
  const throws = await byCall('/throws');
  assert.equal(outer.name, 'main.js › workers/outer.js');
  assert.equal(inner.name, 'main.js › workers/outer.js › workers/inner.js');
  assert.equal(inner.parent_id, outer.id);
  assert.equal(throws.name, 'main.js › workers/throws.js');
  assert.deepEqual([outer.status, inner.status, throws.status], [codes['outer.js'], codes['inner.js'], codes['throws.js']]);
  // The thread that threw ended by its error; the others ended as they meant to.
  assert.deepEqual([outer.ended_by, inner.ended_by, throws.ended_by], ['exit', 'exit', 'error']);
});
