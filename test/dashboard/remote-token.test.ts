import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { REPO_ROOT, waitForLine } from '../helpers/app';
import { FixtureApp, launchBrowser, openPage } from './harness';
import { allFixtureCaptures } from './fixture-captures';
import { startChild } from '../helpers/child';

// Issue: `probe dashboard --host 0.0.0.0` served every capture to the network with no credential, and printed
// http://127.0.0.1:…/ as its address.

interface Started {
  child: ChildProcess;
  banner: string;
  url: URL;
  stop(): Promise<void>;
}

async function startDashboard(app: FixtureApp, args: string[], env: Record<string, string | undefined> = {}): Promise<Started> {
  const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'dashboard', ...args], {
    cwd: app.dir,
    env: app.env({ preload: 'none', env: { PROBE_TOKEN: undefined, ...env } }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Started in a `before` hook for the whole describe: it lives until the file's tests are done (or `stop`).
    lifetime: 'file',
  });
  // The whole banner: the URL line, then what is said about the interfaces and the token.
  const [banner] = await waitForLine(child, /^Probe dashboard: \S+\n[\s\S]*store: .*\n/);
  return {
    child,
    banner: banner!,
    url: new URL(/^Probe dashboard: (\S+)$/m.exec(banner!)![1]!),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A GET to the dashboard over loopback with the Host header a browser on this machine would send. */
function get(
  port: number,
  pathname: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathname, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('probe dashboard --host 0.0.0.0', () => {
  let app: FixtureApp;
  let dashboard: Started;
  let browser: Browser;

  before(async () => {
    app = new FixtureApp();
    app.add(...allFixtureCaptures());
    dashboard = await startDashboard(app, ['--host', '0.0.0.0', '--port', '0']);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await dashboard?.stop();
  });

  it('prints the address it listens on, with a fresh random token, once', () => {
    const { url, banner } = dashboard;
    assert.notEqual(url.hostname, '127.0.0.1');
    assert.notEqual(url.hostname, '0.0.0.0');
    assert.match(url.search, /^\?token=[A-Za-z0-9_-]{32}$/, '24 random bytes, base64url');
    assert.match(banner, /listening on all interfaces \(0\.0\.0\.0\)/);
    const token = url.searchParams.get('token')!;
    assert.equal(banner.split(token).length - 1, 1, 'the token is printed once');
  });

  it('answers 401 without the token, 200 and a cookie with it, then takes the cookie alone', async () => {
    const port = Number(dashboard.url.port);
    const token = dashboard.url.searchParams.get('token')!;
    const refused = await get(port, '/api/captures');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['www-authenticate'], 'Bearer');
    assert.equal((await get(port, '/api/captures?token=not-the-token')).status, 401);
    assert.equal((await get(port, '/')).status, 401);

    const first = await get(port, `/api/captures?token=${token}`);
    assert.equal(first.status, 200);
    assert.equal((JSON.parse(first.body) as unknown[]).length, 7);
    const [cookie] = first.headers['set-cookie'] as string[];
    assert.match(cookie!, /HttpOnly/);
    assert.match(cookie!, /SameSite=Strict/);
    const pair = cookie!.split(';')[0]!;
    assert.equal((await get(port, '/api/captures', { cookie: pair })).status, 200);
    assert.equal((await get(port, '/api/captures', { cookie: `${pair.split('=')[0]}=wrong` })).status, 401);
    assert.equal((await get(port, '/api/captures', { authorization: `Bearer ${token}` })).status, 200);
  });

  it('opens in a real browser from the printed URL, which shows the captures list', async () => {
    const { page } = await openPage(browser);
    await page.goto(dashboard.url.href);
    await page.waitForSelector('[data-testid=capture-row]');
    assert.equal(new URL(page.url()).search, '', 'the token leaves the address bar for the cookie');
    assert.equal(await page.locator('[data-testid=capture-row]').count(), 7);
    await page.context().close();
  });
});

describe('probe dashboard bound beyond loopback with PROBE_TOKEN set', () => {
  it('uses that token in the printed URL; a loopback bind asks for none', async () => {
    const app = new FixtureApp();
    app.add(...allFixtureCaptures());
    const remote = await startDashboard(app, ['--host', '0.0.0.0', '--port', '0'], { PROBE_TOKEN: 'team-token-123456' });
    try {
      assert.equal(remote.url.searchParams.get('token'), 'team-token-123456');
      assert.equal((await get(Number(remote.url.port), '/api/info', { authorization: 'Bearer team-token-123456' })).status, 200);
    } finally {
      await remote.stop();
    }
    const local = await startDashboard(app, ['--port', '0'], { PROBE_TOKEN: 'team-token-123456' });
    try {
      assert.equal(local.url.hostname, '127.0.0.1');
      assert.equal(local.url.search, '');
      assert.equal((await get(Number(local.url.port), '/api/captures')).status, 200);
    } finally {
      await local.stop();
    }
  });
});
