import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { collect, startChild } from '../helpers/child';
import { startCollector, type RunningCollector } from './collectCli';
import { exportRequest, span } from './otlpFixtures';

// A page on an attacker's domain that resolves to 127.0.0.1 (DNS rebinding) reaches a loopback receiver with
// its own name in Host, and a page anywhere can post with its own Origin: on loopback, where no token is asked,
// only the loopback names are accepted, as the dashboard does.

function post(port: number, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify(
    exportRequest([
      span({ spanId: 'b'.repeat(16), traceId: 'c'.repeat(32), kind: 2, start: 0, end: 5, attributes: { 'http.request.method': 'GET', 'url.path': '/x' } }),
    ]),
  );
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('probe collect on loopback refuses a foreign Host or Origin', { timeout: 120_000 }, () => {
  const app = new TestApp({}, 'collector-host');
  let collector: RunningCollector;
  let port: number;
  before(async () => {
    collector = await startCollector(app, [], { lifetime: 'file' });
    port = Number(new URL(collector.url).port);
  });
  after(async () => {
    await collector.stop();
  });

  test('foreign Host: 403', async () => {
    assert.equal(await post(port, { host: `rebind.attacker.test:${port}` }), 403);
    assert.equal(await post(port, { host: `127.0.0.1:${port + 1 === 65536 ? 1 : port + 1}` }), 403);
  });

  test('foreign Origin: 403; a page of this machine (any port) and no Origin: 200', async () => {
    assert.equal(await post(port, { host: `127.0.0.1:${port}`, origin: `http://rebind.attacker.test:${port}` }), 403);
    assert.equal(await post(port, { host: `localhost:${port}`, origin: 'null' }), 403);
    assert.equal(await post(port, { host: `localhost:${port}`, origin: 'http://localhost:3000' }), 200);
    assert.equal(await post(port, { host: `127.0.0.1:${port}` }), 200);
    assert.equal(await post(port, { host: `[::1]:${port}` }), 200);
  });
});

describe('a token shorter than 16 characters is refused beyond loopback, in one line', { timeout: 120_000 }, () => {
  const app = new TestApp({}, 'short-token');
  const cli = (args: string[], env: Record<string, string | undefined>) =>
    collect(
      startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), ...args], {
        cwd: app.dir,
        env: app.env({ preload: 'none', env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
      60_000,
    );
  for (const [args, env] of [
    [['collect', '--host', '0.0.0.0', '--port', '0', '--token', 'short'], {}],
    [['collect', '--host', '0.0.0.0', '--port', '0'], { PROBE_TOKEN: 'a' }],
    [['dashboard', '--host', '0.0.0.0', '--port', '0'], { PROBE_TOKEN: 'a' }],
    [['dashboard', '--host', '0.0.0.0', '--port', '0', '--token', '123456789012345'], {}],
  ] as const) {
    test(`probe ${args.join(' ')}${Object.keys(env).length ? ` with PROBE_TOKEN=${env.PROBE_TOKEN}` : ''}`, async () => {
      const run = await cli([...args], { PROBE_TOKEN: undefined, ...env });
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.equal(run.stdout, '');
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, /^probe (collect|dashboard): .*token.* at least 16 characters/);
    });
  }
});
