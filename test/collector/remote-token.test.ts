import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT, TestApp, collect, eventually, waitForLine } from '../helpers/app';
import { openStore } from '../../src/store/openStore';
import { createLogger } from '../../src/util/logger';
import { exportRequest, span } from './otlpFixtures';
import { startChild } from '../helpers/child';

// `probe collect --host 0.0.0.0` takes spans from the network: it requires a token, shown once in the exporter
// settings it prints, and prints the address it really listens on.

test('probe collect --host 0.0.0.0: 401 without the token, 200 with it as a Bearer header or ?token=', async () => {
  const app = new TestApp({}, 'collector-remote');
  const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'collect', '--host', '0.0.0.0', '--port', '0'], {
    cwd: app.dir,
    env: app.env({ preload: 'none', env: { PROBE_TOKEN: undefined } }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = collect(child, 60_000);
  try {
    const [banner, base, token] = await waitForLine(child, /at (http:\/\/\S+)\n[\s\S]*OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20(\S+)\n/);
    const url = new URL(base!);
    assert.notEqual(url.hostname, '127.0.0.1');
    assert.notEqual(url.hostname, '0.0.0.0');
    assert.match(banner!, /listening on all interfaces \(0\.0\.0\.0\)/);
    assert.match(token!, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(banner!.split(token!).length - 1, 1, 'the token is printed once');

    const traces = `http://127.0.0.1:${url.port}/v1/traces`;
    const body = (path: string, id: string) =>
      JSON.stringify(
        exportRequest([
          span({ spanId: id.repeat(16), traceId: id.repeat(32), kind: 2, start: 0, end: 5, attributes: { 'http.request.method': 'GET', 'url.path': path } }),
        ]),
      );
    const post = (target: string, payload: string, headers: Record<string, string> = {}) =>
      fetch(target, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });

    const refused = await post(traces, body('/refused', 'a'));
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
    assert.match(((await refused.json()) as { message: string }).message, /Authorization: Bearer/);
    assert.equal((await post(traces, body('/wrong', 'b'), { authorization: 'Bearer not-the-token' })).status, 401);

    const bearer = await post(traces, body('/bearer', 'c'), { authorization: `Bearer ${token}` });
    assert.equal(bearer.status, 200);
    const query = await post(`${traces}?token=${token}`, body('/query', 'd'));
    assert.equal(query.status, 200);

    const { store } = openStore({ cwd: app.dir, env: {}, logger: createLogger(() => undefined) });
    try {
      const names = await eventually(async () => {
        const rows = await store.index();
        return rows.length === 2 ? rows.map((row) => row.name).sort() : undefined;
      });
      assert.deepEqual(names, ['GET /bearer', 'GET /query']);
    } finally {
      await store.close?.();
    }
  } finally {
    child.kill('SIGTERM');
    await done;
  }
});

test('probe collect on loopback asks for no token, unless --token is given', async () => {
  const app = new TestApp({}, 'collector-local');
  const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'collect', '--port', '0', '--token', 'local-secret'], {
    cwd: app.dir,
    env: app.env({ preload: 'none', env: { PROBE_TOKEN: undefined } }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = collect(child, 60_000);
  try {
    const [, base] = await waitForLine(child, /at (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*Bearer%20local-secret\n/);
    const payload = JSON.stringify(exportRequest([]));
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/v1/traces`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });
    assert.equal((await post({})).status, 401);
    assert.equal((await post({ authorization: 'bearer local-secret' })).status, 200);
  } finally {
    child.kill('SIGTERM');
    await done;
  }
});
