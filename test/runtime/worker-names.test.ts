import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpRow } from '../../src/capture/types';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { TestApp, eventually, waitForLine } from '../helpers/app';
import { installPinned } from '../helpers/pinned';
import { processName } from '../../src/runtime/processName';

/**
 * The background capture of each worker of a process manager names the worker: a `node:cluster` worker
 * `cluster.cjs [worker 2]`, a PM2 worker the app's script and its PM2 instance (never PM2's ProcessContainer.js).
 */
const CLUSTER = `
const cluster = require('node:cluster');
if (cluster.isPrimary) {
  let left = 2;
  for (let i = 0; i < 2; i++) cluster.fork().on('exit', () => --left || console.log('workers done'));
} else {
  fetch(process.env.TARGET + '/boot/' + cluster.worker.id).then((r) => r.text()).then((text) => {
    console.log('worker ' + cluster.worker.id + ' ' + text);
    process.exit(0);
  });
}
`;

const CACHE = process.env.PROBE_UNITS_NET_CACHE ?? path.join(os.homedir(), '.cache', 'probe-units-net');
const PM2 = '6.0.13';

/** A server under PM2: each instance makes one call at boot and prints the instance PM2 gave it. */
const PM2_APP = `
const http = require('node:http');
http.createServer((req, res) => res.end('up')).listen(0, '127.0.0.1');
fetch(process.env.TARGET + '/boot/' + process.env.NODE_APP_INSTANCE).then((r) => r.text()).then((text) => console.log('instance ' + process.env.NODE_APP_INSTANCE + ' ' + text));
`;

describe('workers named', () => {
  let upstream: http.Server;
  let target = '';
  before(async () => {
    upstream = http.createServer((req, res) => res.end(`ok ${req.url}`));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(() => upstream.close());

  it('node:cluster workers: script [worker N], each with its own calls', async () => {
    const app = new TestApp({ 'cluster.cjs': CLUSTER });
    const result = await app.run('cluster.cjs', { env: { TARGET: target } });
    assert.equal(result.code, 0, result.stderr);
    // The oracle: the ids the workers themselves got from node:cluster.
    const ids = [...result.stdout.matchAll(/^worker (\d+) ok/gm)].map((m) => m[1]!).sort();
    assert.equal(ids.length, 2, result.stdout);
    const commands = app.captures().filter((c) => c.type === 'command');
    assert.deepEqual(
      commands.map((c) => c.name).sort(),
      ids.map((id) => `cluster.cjs [worker ${id}]`),
    );
    for (const capture of commands) {
      const id = capture.name.match(/\[worker (\d+)\]/)![1];
      const rows = (capture.sections.http ?? []) as HttpRow[];
      assert.deepEqual(
        rows.map((row) => new URL(row.url).pathname),
        [`/boot/${id}`],
      );
    }
  });

  it(`PM2 ${PM2} cluster mode (pm2-runtime start app.cjs -i 2): app.cjs [pm2 instance N]`, async () => {
    const dir = await installPinned({ dir: path.join(CACHE, `pm2-${PM2}`), package: { name: 'pm2-app', dependencies: { pm2: PM2 } }, probe: false });
    const app = new TestApp({ 'app.cjs': PM2_APP });
    const home = mkdtempSync(path.join(os.tmpdir(), 'probe-pm2-'));
    const child = app.spawn(path.join(dir, 'node_modules', 'pm2', 'bin', 'pm2-runtime'), {
      args: ['start', 'app.cjs', '-i', '2'],
      env: { TARGET: target, PM2_HOME: home },
    });
    // The oracle: the instances the app's own processes got from PM2.
    const seen = new Set<string>();
    await waitForLine(child, /instance (\d+) ok[\s\S]*instance (\d+) ok/).then((m) => [m[1]!, m[2]!].forEach((i) => seen.add(i)));
    assert.equal(seen.size, 2);
    const workers = await eventually(() => {
      const found = app.captures().filter((c) => c.type === 'command' && (c.sections.http ?? []).length > 0);
      return found.length === 2 ? found : undefined;
    });
    assert.deepEqual(
      workers.map((c) => c.name).sort(),
      [...seen].sort().map((i) => `app.cjs [pm2 instance ${i}]`),
    );
    for (const capture of workers) {
      const instance = capture.name.match(/instance (\d+)/)![1];
      assert.deepEqual(
        ((capture.sections.http ?? []) as HttpRow[]).map((row) => new URL(row.url).pathname),
        [`/boot/${instance}`],
      );
    }
  });

  it('PM2 workers: the app script and the PM2 instance, from the variables PM2 sets', () => {
    const root = '/srv/app';
    // What a PM2 cluster worker sees: a node:cluster worker id, PM2's ProcessContainer.js with the daemon's
    // arguments, and PM2's own variables.
    const argv = ['/usr/bin/node', '/srv/app/node_modules/pm2/lib/ProcessContainer.js', 'start', 'app.js', '-i', '2', '--no-daemon'];
    const fields = { pm_exec_path: '/srv/app/app.js', pm_id: 4, NODE_APP_INSTANCE: 1, instance_var: 'NODE_APP_INSTANCE' };
    assert.equal(processName(root, argv, { pm2_env: JSON.stringify(fields) }, 3, []), 'app.js [pm2 instance 1]');
    assert.equal(processName(root, argv, { pm2_env: JSON.stringify({ ...fields, NODE_APP_INSTANCE: undefined }) }, 3, []), 'app.js [pm2 instance 4]');
    // Fork mode: the same fields in the environment itself.
    assert.equal(processName(root, argv, { pm_exec_path: '/srv/app/app.js', pm_id: '0', NODE_APP_INSTANCE: '0' }, undefined, []), 'app.js [pm2 instance 0]');
    assert.equal(processName(root, ['/usr/bin/node', '/srv/app/cluster.js'], {}, 2, []), 'cluster.js [worker 2]');
    assert.equal(processName(root, ['/usr/bin/node', '/srv/app/scripts/sync.js', '--all'], {}, undefined, []), 'scripts/sync.js --all');
  });
});
