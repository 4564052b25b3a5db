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
