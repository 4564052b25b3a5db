import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { TestApp, waitForLine } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { RedisServer, freePort } from '../helpers/redis';
import { launchBrowser, openPage, startDashboardCli, type RunningCli } from './harness';

// Browser globals used inside page.evaluate callbacks (tests are type-checked without the DOM lib).
declare const window: Record<string, unknown>;

// A real app under `--require probe/register`: one request makes a masked JSON POST, a pool of three
// calls (one 503), a refused connection, a followed redirect chain and an HTML body carrying a script.
const SERVER = `
const http = require('node:http');
const { pool } = require('probe');
const UP = process.env.UP;
const server = http.createServer(async (req, res) => {
  await fetch(UP + '/json?token=abc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk_live_topsecret' },
    body: JSON.stringify({ password: 'hunter2', note: 'hello' }),
  }).then((r) => r.json());
  await pool(() => Promise.all([
    fetch(UP + '/slow?ms=20').then((r) => r.text()),
    fetch(UP + '/status/503').then((r) => r.text()),
    fetch(UP + '/text').then((r) => r.text()),
  ]));
  await fetch('http://127.0.0.1:' + process.env.CLOSED_PORT + '/nothing').catch(() => {});
  await fetch(UP + '/redirect/2').then((r) => r.text());
  await fetch(UP + '/html').then((r) => r.text());
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

async function rowText(page: Page, index: number): Promise<string> {
  return (await page.textContent(`[data-testid=http-row][data-row="${index}"]`)) ?? '';
}

/** Dashboard first, then the app: the capture must appear in the open page while the app writes it. */
async function recordAndBrowse(app: TestApp, upstream: Upstream, browser: Browser): Promise<void> {
  const cli: RunningCli = await startDashboardCli(app);
  const { page, context, dialogs, errors } = await openPage(browser);
  const child = app.spawn('server.js', { env: { UP: upstream.url, CLOSED_PORT: String(await freePort()) } });
  try {
    await page.goto(cli.url);
    await page.waitForSelector('[data-testid=list-empty]');

    const [, port] = await waitForLine(child, /listening (\d+)/);
    await (await fetch(`http://127.0.0.1:${port}/checkout?coupon=x`)).text();
    const row = page.locator('[data-testid=capture-row]', { hasText: 'GET /checkout' });
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    await page.waitForSelector('[data-testid=capture-header]');
    await page.click('[data-testid=tab-http]');
    await page.waitForSelector('[data-testid=http-tab]');

    const rows = await page.locator('[data-testid=http-row]').count();
    assert.equal(rows, 7);
    const texts = await Promise.all([...Array(rows).keys()].map((i) => rowText(page, i)));
    const at = (pattern: RegExp) => texts.findIndex((text) => pattern.test(text));
    const posted = at(/\/json\?token=\*{8}/);
    const refused = at(/\/nothing/);
    const redirected = at(/\/redirect\/2/);
    const html = at(/\/html/);
    assert.ok(posted >= 0 && refused >= 0 && redirected >= 0 && html >= 0, texts.join('\n'));
    assert.equal(texts.filter((text) => /#1/.test(text)).length, 3, 'three pooled calls');
    assert.match(texts[refused]!, /failed/);
    assert.match(texts.find((text) => /\/status\/503/.test(text)) ?? '', /503/);

    await page.click(`[data-testid=http-row][data-row="${posted}"]`);
    const detail = page.locator(`[data-testid=row-detail][data-row="${posted}"]`);
    const waterfall = (await detail.locator('[data-testid=waterfall]').textContent()) ?? '';
    assert.match(waterfall, /Waiting/);
    assert.match(waterfall, /HTTP\/1\.1/);
    assert.match(waterfall, /127\.0\.0\.1:\d+/);
    assert.match((await detail.locator('[data-testid=request-payload]').textContent()) ?? '', /password\s*\*{8}/);
    assert.match((await detail.locator('[data-testid=response]').textContent()) ?? '', /JsonCapture/);
    await detail.locator('[data-testid=copy-curl]').click();
    await page.waitForFunction(() => (window.__copied as string[]).length > 0);
    const curl = (await page.evaluate(() => (window.__copied as string[])[0]))!;
    assert.match(curl, /^curl -X POST '.*\/json\?token=\*{8}'/);
    assert.match(curl, /-H 'authorization: \*{8}'/);
    assert.doesNotMatch(curl, /sk_live_topsecret|hunter2/, 'masked values stay masked');

    await page.click(`[data-testid=http-row][data-row="${refused}"]`);
    assert.match((await page.textContent(`[data-testid=row-detail][data-row="${refused}"] [data-testid=exception]`)) ?? '', /ECONNREFUSED/);
    await page.click(`[data-testid=http-row][data-row="${redirected}"]`);
    assert.match((await page.textContent(`[data-testid=row-detail][data-row="${redirected}"] [data-testid=waterfall]`)) ?? '', /Redirects2/);
    await page.click(`[data-testid=http-row][data-row="${html}"]`);
    assert.match(
      (await page.textContent(`[data-testid=row-detail][data-row="${html}"] [data-testid=raw-body]`)) ?? '',
      /<script>window\.__pwned = true<\/script>/,
    );
    assert.equal(await page.evaluate(() => window.__pwned), undefined);

    await page.click('[data-testid=tab-timeline]');
    await page.waitForSelector('[data-testid=tl-pool]');
    assert.equal(await page.locator('[data-testid=tl-http]').count(), 7);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
  } finally {
    child.kill();
    await context.close();
    await cli.stop();
  }
}

describe('dashboard over captures recorded by a real app under the preload', () => {
  let upstream: Upstream;
  let redis: RedisServer;
  let browser: Browser;
  before(async () => {
    upstream = await startUpstream();
    redis = await RedisServer.start();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await upstream?.close();
    await redis?.kill();
  });

  it('file store (the default)', async () => {
    const app = new TestApp({ 'server.js': SERVER, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }) });
    await recordAndBrowse(app, upstream, browser);
  });

  it('Redis store, selected by the config both the app and the dashboard read', async () => {
    const app = new TestApp({
      'server.js': SERVER,
      'probe.config.json': JSON.stringify({
        storage: { driver: 'redis', redis: { url: redis.url, prefix: 'e2e-dashboard:' } },
        lenses: { HttpClientLens: { bodies: true } },
      }),
    });
    await recordAndBrowse(app, upstream, browser);
  });
});
