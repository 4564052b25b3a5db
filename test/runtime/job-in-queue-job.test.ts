import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { installPinned } from '../helpers/pinned';
import { RedisServer } from '../helpers/redis';

/**
 * A BullMQ processor wrapped in `job()` (the app's own name and id for its jobs) runs inside the job capture Probe
 * already makes for every BullMQ job: `job()` names that capture instead of adding a second, empty one. Three jobs,
 * three captures, each holding its own call. A `job()` outside a recorded job still makes its own capture.
 */
const CACHE = process.env.PROBE_UNITS_NET_CACHE ?? path.join(os.homedir(), '.cache', 'probe-units-net');

const APP = `
const { Queue, Worker } = require(process.env.BULLMQ_PATH);
const { job } = require('probe');
const connection = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) };
const queue = new Queue('mail', { connection });
let done = 0;
const worker = new Worker('mail', (bull) => job('send-email', async () => {
  const text = await fetch(process.env.TARGET + '/send/' + bull.data.to).then((r) => r.text());
  return text;
}, { id: 'mail-' + bull.id }), { connection });
worker.on('completed', async (bull, result) => {
  console.log('completed ' + bull.id + ' ' + result);
  if (++done === 3) {
    await job('report', () => fetch(process.env.TARGET + '/report').then((r) => r.text()));
    await worker.close();
    await queue.close();
  }
});
worker.on('ready', () => queue.addBulk([1, 2, 3].map((n) => ({ name: 'mail', data: { to: 'user' + n } }))));
`;

describe('job() inside a job Probe records', () => {
  let redis: RedisServer;
  let upstream: http.Server;
  let target = '';
  let bullmq = '';
  before(async () => {
    const dir = await installPinned({
      dir: path.join(CACHE, 'bullmq-5.81.5'),
      package: { name: 'bullmq-app', dependencies: { bullmq: '5.81.5' } },
      probe: false,
    });
    bullmq = path.join(dir, 'node_modules', 'bullmq');
    redis = await RedisServer.start();
    upstream = http.createServer((req, res) => res.end(`sent ${req.url}`));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    upstream.close();
    await redis.stop();
  });

  it('3 jobs wrapped in job(): 3 captures, named and numbered by the app', async () => {
    const app = new TestApp({ 'worker.cjs': APP });
    const result = await app.run('worker.cjs', { env: { BULLMQ_PATH: bullmq, REDIS_PORT: String(redis.port), TARGET: target } });
    assert.equal(result.code, 0, result.stderr);
    const completed = result.stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('completed '));
    assert.equal(completed.length, 3, result.stdout);
    const jobs = app.captures().filter((c) => c.type === 'job');
    const mails = jobs.filter((c) => c.name !== 'report');
    assert.deepEqual(
      mails.map((c) => c.name),
      ['send-email', 'send-email', 'send-email'],
      JSON.stringify(jobs.map((c) => [c.name, c.job_id, (c.sections.http ?? []).length])),
    );
    // Each capture: the app's id, its own call, the queue's tags Probe gave it.
    const ids = completed.map((line) => `mail-${line.split(' ')[1]}`).sort();
    assert.deepEqual(mails.map((c) => c.job_id).sort(), ids);
    for (const capture of mails) {
      assert.equal(capture.status, 'done');
      const rows = (capture.sections.http ?? []) as HttpRow[];
      assert.equal(rows.length, 1);
      assert.ok(capture.tags.includes('queue:mail'), capture.tags.join());
    }
    // A job() outside any recorded job is a capture of its own, as before.
    const report = jobs.filter((c) => c.name === 'report');
    assert.equal(report.length, 1);
    assert.equal(((report[0]!.sections.http ?? []) as HttpRow[]).length, 1);
    assert.equal(jobs.length, 4);
  });
});
