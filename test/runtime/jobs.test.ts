// Issue 26: queue consumers and scheduled tasks are job captures with no app code: BullMQ workers (a producer and a
// worker in separate processes, on a real redis-server), bee-queue (promise and callback handlers), node-cron and
// croner. Read with `probe list --json` while the worker still runs, and compared with the same app without Probe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { installRunnerApp, cleanEnv } from '../testrunner/install';
import { RedisServer } from '../helpers/redis';
import { collect, eventually, waitForLine } from '../helpers/app';
import { startChild } from '../helpers/child';
import type { Capture } from '../../src/capture/types';

const LIMIT = 240_000; // a cold install and the preload's start on a loaded machine; waits end at the line
const SEEN = 60_000;

let upstream: http.Server;
let target = '';
let redis: RedisServer;
let app = '';
const children: ChildProcess[] = [];

before(async () => {
  upstream = http.createServer((req, res) => res.end(req.url?.includes('fail') ? 'no' : 'ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  redis = await RedisServer.start();
  app = await installRunnerApp('jobs', {
    bullmq: '5.81.5',
    'bullmq-otel': '1.3.1',
    'bee-queue': '1.7.1',
    'node-cron': '4.6.0',
    croner: '9.1.0',
  });
  for (const [file, text] of Object.entries(APPS)) fs.writeFileSync(path.join(app, file), text);
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  upstream.close();
  await redis.stop();
});

const APPS: Record<string, string> = {
  'bull-worker.cjs': `const { Worker } = require('bullmq');
const connection = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) };
const worker = new Worker(process.env.QUEUE, async (job) => {
  const answer = await fetch(process.env.TARGET + job.name + '?n=' + job.data.n).then((r) => r.text()); // call: job
  if (job.name === 'fail') throw new Error('job failed on purpose');
  return answer;
}, { connection });
worker.on('completed', (job, result) => console.log('completed ' + job.name + ' ' + result));
worker.on('failed', (job, error) => console.log('failed ' + job.name + ' ' + error.message));
worker.on('ready', () => console.log('ready'));
process.on('SIGTERM', () => worker.close().then(() => process.exit(0)));
`,
  'bull-producer.cjs': `const { Queue } = require('bullmq');
const queue = new Queue(process.env.QUEUE, { connection: { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) } });
Promise.all([queue.add('sync-user', { n: 1 }), queue.add('fail', { n: 2 }, { attempts: 1 })]).then(() => queue.close());
`,
  // A server that queues a job inside a request and runs it with its own Worker; one more job queued at boot.
  'bull-same.cjs': `const http = require('node:http');
const { Queue, Worker } = require('bullmq');
const connection = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) };
const queue = new Queue(process.env.QUEUE, { connection });
const worker = new Worker(process.env.QUEUE, async (job) => fetch(process.env.TARGET + job.name).then((r) => r.text()), { connection });
worker.on('completed', (job) => console.log('completed ' + job.name));
const server = http.createServer(async (req, res) => {
  await fetch(process.env.TARGET + 'in-request').then((r) => r.text());
  const job = await queue.add(req.url === '/bulk' ? 'never' : 'from-request', { n: 1 });
  if (req.url === '/bulk') await queue.addBulk([{ name: 'from-bulk', data: { n: 2 } }]);
  res.end('queued ' + (job.id !== undefined));
});
worker.on('ready', () => queue.add('at-boot', { n: 0 }).then(() => server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port))));
process.on('SIGTERM', () => Promise.all([worker.close(), queue.close()]).then(() => { server.close(); process.exit(0); }));
`,
  // The app's own telemetry: BullMQ's \`telemetry\` option (bullmq-otel) and a W3C propagator, producer and worker
  // in two processes.
  'otel-setup.cjs': `const { propagation } = require('@opentelemetry/api');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
// With an OTel SDK of the app's own, BullMQ's CONSUMER span is recorded too (Probe joins the app's provider).
if (process.env.APP_SDK) new (require('@opentelemetry/sdk-trace-node').NodeTracerProvider)().register();
const { BullMQOtel } = require('bullmq-otel');
module.exports = { telemetry: new BullMQOtel('app'), connection: { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) } };
`,
  'otel-producer.cjs': `const http = require('node:http');
const { Queue } = require('bullmq');
const { telemetry, connection } = require('./otel-setup.cjs');
const queue = new Queue(process.env.QUEUE, { connection, telemetry });
const server = http.createServer(async (req, res) => {
  await queue.add('traced', { n: 1 });
  res.end('queued');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => queue.close().then(() => { server.close(); process.exit(0); }));
`,
  'otel-worker.cjs': `const { Worker } = require('bullmq');
const { telemetry, connection } = require('./otel-setup.cjs');
const worker = new Worker(process.env.QUEUE, async (job) => fetch(process.env.TARGET + job.name).then((r) => r.text()), { connection, telemetry });
worker.on('completed', (job) => console.log('completed ' + job.name));
worker.on('ready', () => console.log('ready'));
process.on('SIGTERM', () => worker.close().then(() => process.exit(0)));
`,
  'bee.cjs': `const Queue = require('bee-queue');
const redis = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) };
const promised = new Queue(process.env.QUEUE + '-p', { redis });
const callbacks = new Queue(process.env.QUEUE + '-c', { redis });
promised.process(async (job) => fetch(process.env.TARGET + 'bee-p?n=' + job.data.n).then((r) => r.text()));
callbacks.process((job, done) => { fetch(process.env.TARGET + 'bee-c?n=' + job.data.n).then((r) => r.text()).then((t) => done(null, t), done); });
let left = 2;
const finished = (name) => (id, result) => { console.log(name + ' succeeded ' + result); if (--left === 0) Promise.all([promised.close(), callbacks.close()]).then(() => process.exit(0)); };
promised.on('job succeeded', finished('promised'));
callbacks.on('job succeeded', finished('callbacks'));
Promise.all([promised.ready(), callbacks.ready()]).then(() => Promise.all([promised.createJob({ n: 1 }).save(), callbacks.createJob({ n: 2 }).save()]));
`,
  'cron.cjs': `const cron = require('node-cron');
const { Cron } = require('croner');
let runs = 0;
const done = () => { if (++runs === 2) { task.stop(); timer.stop(); console.log('ticked'); } };
const task = cron.schedule('* * * * * *', () => fetch(process.env.TARGET + 'node-cron').then((r) => r.text()).then(done));
const timer = new Cron('* * * * * *', () => fetch(process.env.TARGET + 'croner').then((r) => r.text()).then(done));
`,
};

function env(preload: boolean, queue: string): NodeJS.ProcessEnv {
  return { ...cleanEnv(), NODE_OPTIONS: preload ? '--require probe/register' : '', TARGET: target, REDIS_PORT: String(redis.port), QUEUE: queue };
}

function start(file: string, preload: boolean, queue: string, more: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = startChild(process.execPath, [file], { cwd: app, env: { ...env(preload, queue), ...more } });
  children.push(child);
  return child;
}

interface Listed {
  id: string;
  parent_id: string | null;
  type: string;
  name: string;
  status: string;
  job_id: string | null;
  tags: string[];
}

async function list(type = 'job'): Promise<Listed[]> {
  const run = await collect(
    startChild(process.execPath, [path.join(app, 'node_modules', 'probe', 'dist', 'cli', 'main.js'), 'list', '--json', '--type', type], {
      cwd: app,
      env: env(false, ''),
    }),
    SEEN,
  );
  return (JSON.parse(run.stdout) as { captures: Listed[] }).captures;
}

const sortedLines = (text: string) => text.split('\n').filter(Boolean).sort();

test('BullMQ: each job of a plain processor is a job capture, seen while the worker runs; the app sees the same', { timeout: LIMIT * 2 }, async () => {
  const outputs: string[][] = [];
  for (const preload of [false, true]) {
    fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
    const queue = `q${Date.now()}${preload ? 'p' : 'n'}`;
    const worker = start('bull-worker.cjs', preload, queue);
    const result = collect(worker, LIMIT);
    await waitForLine(worker, /ready/, LIMIT);
    const bothEnded = waitForLine(worker, /(?:(?:completed|failed) [^\n]*\n[\s\S]*){2}/, LIMIT);
    const producer = await collect(startChild(process.execPath, ['bull-producer.cjs'], { cwd: app, env: env(preload, queue) }), LIMIT);
    assert.equal(producer.code, 0, producer.stderr);
    if (preload) {
      // While the worker still runs.
      const jobs = await eventually(async () => {
        const rows = await list();
        return rows.length === 2 ? rows : undefined;
      }, SEEN);
      const byName = Object.fromEntries(jobs.map((row) => [row.name, row]));
      assert.equal(byName['sync-user']!.status, 'done');
      assert.equal(byName.fail!.status, 'failed');
      assert.ok(byName['sync-user']!.job_id);
      assert.deepEqual(byName['sync-user']!.tags, [`queue:${queue}`, 'attempt:1']);
    }
    await bothEnded;
    worker.kill('SIGTERM');
    const { stdout, code } = await result;
    assert.equal(code, 0);
    outputs.push(sortedLines(stdout));
  }
  assert.deepEqual(outputs[1], outputs[0], 'the worker prints the same with and without Probe');
});

test('bee-queue (promise and callback handlers), node-cron and croner runs are job captures', { timeout: LIMIT * 2 }, async () => {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const queue = `bee${Date.now()}`;
  const plain = await collect(start('bee.cjs', false, queue), LIMIT);
  const probed = await collect(start('bee.cjs', true, `${queue}x`), LIMIT);
  assert.equal(probed.code, plain.code, probed.stderr);
  assert.deepEqual(sortedLines(probed.stdout), sortedLines(plain.stdout));
  const cron = await collect(start('cron.cjs', true, queue), LIMIT);
  assert.match(cron.stdout, /ticked/, cron.stderr);

  const jobs = await list();
  const names = jobs.map((row) => `${row.name} ${row.status}`).sort();
  assert.ok(names.includes(`${queue}x-p done`), names.join('\n'));
  assert.ok(names.includes(`${queue}x-c done`), names.join('\n'));
  assert.ok(
    names.some((name) => /^cron \* \* \* \* \* \* \(cron\.cjs:5\) done$/.test(name)),
    names.join('\n'),
  );
  assert.ok(
    names.some((name) => /^cron \* \* \* \* \* \* \(cron\.cjs:6\) done$/.test(name)),
    names.join('\n'),
  );
});

test('BullMQ: a job queued inside a request and run by a Worker of the same process has that request as parent_id', { timeout: LIMIT * 2 }, async () => {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const queue = `same${Date.now()}`;
  const server = start('bull-same.cjs', true, queue);
  const result = collect(server, LIMIT);
  const [, port] = await waitForLine(server, /listening (\d+)/, LIMIT);
  const ran = waitForLine(server, /(?:completed [^\n]*\n[\s\S]*){4}/, LIMIT);
  assert.equal(await fetch(`http://127.0.0.1:${port}/one`).then((r) => r.text()), 'queued true');
  assert.equal(await fetch(`http://127.0.0.1:${port}/bulk`).then((r) => r.text()), 'queued true');
  await ran;
  // While the server still runs.
  const jobs = await eventually(async () => {
    const rows = await list();
    return rows.length === 4 ? rows : undefined;
  }, SEEN);
  const requests = await list('request');
  assert.equal(requests.length, 2);
  const byName = Object.fromEntries(jobs.map((row) => [row.name, row]));
  assert.ok(
    requests.some((row) => row.id === byName['from-request']!.parent_id),
    'add: the request that queued it',
  );
  assert.equal(byName.never!.parent_id, byName['from-bulk']!.parent_id, 'add and addBulk in one request: the same parent');
  assert.notEqual(byName.never!.parent_id, byName['from-request']!.parent_id);
  assert.ok(
    requests.some((row) => row.id === byName['from-bulk']!.parent_id),
    'addBulk: the request that queued it',
  );
  assert.equal(byName['at-boot']!.parent_id, null, 'queued outside any request');
  for (const row of jobs) assert.equal(row.status, 'done');
  server.kill('SIGTERM');
  const { code, stderr } = await result;
  assert.equal(code, 0, stderr);
});

function stored(): Capture[] {
  const folder = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => (JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as { capture: Capture }).capture);
}

for (const sdk of ['', '1']) {
  test(
    `BullMQ across processes: parent_id stays null; with the app's own telemetry${sdk ? ' and OTel SDK' : ''} the job carries the request's trace (linked_via trace), one capture per job`,
    { timeout: LIMIT * 2 },
    async () => {
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      const queue = `otel${Date.now()}`;
      const worker = start('otel-worker.cjs', true, queue, { APP_SDK: sdk });
      const workerResult = collect(worker, LIMIT);
      await waitForLine(worker, /ready/, LIMIT);
      const producer = start('otel-producer.cjs', true, queue, { APP_SDK: sdk });
      const producerResult = collect(producer, LIMIT);
      const [, port] = await waitForLine(producer, /listening (\d+)/, LIMIT);
      const ran = waitForLine(worker, /completed traced/, LIMIT);
      assert.equal(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text()), 'queued');
      await ran;
      const [job] = await eventually(async () => {
        const rows = await list();
        return rows.length ? rows : undefined;
      }, SEEN);
      const request = await eventually(() => stored().find((c) => c.type === 'request'), SEEN);
      const jobs = stored().filter((c) => c.type === 'job');
      assert.deepEqual(
        jobs.map((c) => c.name),
        ['traced'],
        "one job capture: BullMQ's CONSUMER span and Probe's job are the same run",
      );
      assert.equal(jobs[0]!.id, job!.id);
      assert.equal(jobs[0]!.parent_id, null, 'another process: no parent_id');
      assert.equal(jobs[0]!.linked_via, 'trace');
      assert.equal(jobs[0]!.trace_id, request.trace_id, "the producer's trace, carried by the app's telemetry");
      assert.equal(jobs[0]!.sections.http?.length, 1);
      worker.kill('SIGTERM');
      producer.kill('SIGTERM');
      assert.equal((await workerResult).code, 0);
      assert.equal((await producerResult).code, 0);
    },
  );
}
