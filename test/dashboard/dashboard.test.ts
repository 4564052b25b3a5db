import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { FixtureApp, launchBrowser, openPage, REBIND_HOST, startDashboardCli, type RunningCli } from './harness';
import { allFixtureCaptures, BIG_ID, CHECKOUT_ID, XSS_NAME_ID } from './fixture-captures';
import type { Capture } from '../../src/capture/types';

// Browser globals used inside page.evaluate callbacks (tests are type-checked without the DOM lib).
declare const window: Record<string, unknown> & { scrollTo(x: number, y: number): void };
declare const document: { querySelectorAll(selector: string): { length: number } };
type HTMLElement = { style: { paddingLeft: string } };

/** A raw GET with a chosen Host header (fetch will not let us forge one). */
function rawGet(
  port: number,
  pathname: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathname, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A fresh document at `url`: a hash-only change would keep the previous test's UI state. */
async function visit(page: Page, url: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(url);
}

async function rowCount(page: Page): Promise<number> {
  return page.locator('[data-testid=capture-row]').count();
}

describe('probe dashboard (fixture captures through a custom store driver)', () => {
  let app: FixtureApp;
  let cli: RunningCli;
  let browser: Browser;
  let page: Page;
  let dialogs: string[];
  let pageErrors: string[];

  before(async () => {
    app = new FixtureApp();
    app.add(...allFixtureCaptures());
    cli = await startDashboardCli(app, undefined, { lifetime: 'file' });
    browser = await launchBrowser();
    ({ page, dialogs, errors: pageErrors } = await openPage(browser));
  });

  after(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('prints the URL on its first line, bound to 127.0.0.1', () => {
    assert.match(cli.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('lists captures newest first and filters by type, errors and text', async () => {
    await visit(page, cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    const ids = await page.locator('[data-testid=capture-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    assert.equal(ids.length, 7);
    assert.equal(ids[0], XSS_NAME_ID);
    assert.equal(ids[1], CHECKOUT_ID);
    assert.equal(ids[2], BIG_ID);

    await page.click('[data-testid=type-job]');
    assert.equal(await rowCount(page), 2);
    await page.click('[data-testid=type-all]');
    await page.check('[data-testid=errors-only]');
    const withErrors = await page.locator('[data-testid=capture-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    assert.ok(withErrors.includes(CHECKOUT_ID) && withErrors.includes(BIG_ID));
    assert.equal(withErrors.length, 4, 'checkout, big job, login 401 and the seed command have errors');
    await page.uncheck('[data-testid=errors-only]');
    await page.fill('[data-testid=list-filter]', 'checkout');
    assert.equal(await rowCount(page), 1);
    await page.fill('[data-testid=list-filter]', '');
    assert.equal(await rowCount(page), 7);
  });

  it("groups captures by route template, and shows each capture's route", async () => {
    await visit(page, cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    assert.equal(await page.locator(`[data-testid=capture-row][data-id=${CHECKOUT_ID}] [data-testid=capture-route]`).textContent(), '/checkout');
    await page.check('[data-testid=by-route]');
    await page.waitForSelector('[data-testid=route-group]');
    const keys = await page.locator('[data-testid=route-group-key]').allTextContents();
    assert.deepEqual(keys, ['(no route)', '/checkout'], 'the most captured route first');
    const groups = await page.locator('[data-testid=route-group]').allTextContents();
    assert.match(groups[1]!, /1 capture(?!s)/);
    assert.equal(await rowCount(page), 7, 'every capture under its route');
    // The row right after the /checkout header is the checkout capture.
    const after = await page.locator('[data-testid=route-group]:has([data-testid=route-group-key]:text-is("/checkout")) + tr').getAttribute('data-id');
    assert.equal(after, CHECKOUT_ID);
    await page.uncheck('[data-testid=by-route]');
    assert.equal(await page.locator('[data-testid=route-group]').count(), 0);
  });

  it('shows a capture written while the page is open, without a reload', async () => {
    await visit(page, cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    const fresh: Capture = {
      ...allFixtureCaptures()[0]!,
      id: 'livecapture0001',
      name: 'GET /live-update',
      started_at: 1_900_000_000,
      ended_at: 1_900_000_000.5,
    };
    app.add(fresh);
    await page.waitForSelector('[data-testid=capture-row][data-id=livecapture0001]', { timeout: 60_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument), true);
    const first = await page.locator('[data-testid=capture-row]').first().getAttribute('data-id');
    assert.equal(first, 'livecapture0001', 'newest first');
  });

  it('opens a capture: header, overview with the HTTP share, timeline with pool rows, HTTP tab', async () => {
    await visit(page, cli.url);
    await page.click(`[data-testid=capture-row][data-id=${CHECKOUT_ID}]`);
    await page.waitForSelector('[data-testid=capture-header]');
    const header = await page.textContent('[data-testid=capture-header]');
    assert.match(header ?? '', /GET \/checkout/);
    assert.match(header ?? '', /200/);
    assert.match(header ?? '', /612 ms/);
    assert.match((await page.textContent('[data-testid=breakdown-http]')) ?? '', /Outgoing HTTP/);
    assert.match((await page.textContent('[data-testid=breakdown-app]')) ?? '', /Application/);

    await page.click('[data-testid=tab-timeline]');
    await page.waitForSelector('[data-testid=timeline]');
    const items = await page.locator('[data-testid=timeline] .tl-row:not(.tl-axis)').evaluateAll((rows) =>
      rows.map((r) => ({
        kind: r.getAttribute('data-testid'),
        indent: parseFloat((r.querySelector('.tl-label') as HTMLElement).style.paddingLeft),
        text: r.textContent ?? '',
      })),
    );
    const poolAt = items.findIndex((item) => item.kind === 'tl-pool');
    assert.ok(poolAt > 0, 'a pool row');
    const underPool = items.slice(poolAt + 1, poolAt + 4);
    assert.deepEqual(
      underPool.map((item) => item.kind),
      ['tl-http', 'tl-http', 'tl-http'],
    );
    for (const item of underPool) {
      assert.ok(item.indent > items[poolAt]!.indent, 'pooled calls hang under the pool row');
      assert.match(item.text, /pricing\.test/);
    }
    assert.equal(items.filter((item) => item.kind === 'tl-http').length, 12);

    await page.click('[data-testid=tab-http]');
    await page.waitForSelector('[data-testid=http-tab]');
    assert.equal(await page.locator('[data-testid=http-row]').count(), 12);
    assert.equal((await page.textContent('[data-testid=http-row][data-row="5"]'))?.includes('failed'), true);
  });

  it('groups calls by endpoint, host, pool and status with count, failed and times (p50 and p95 too)', async () => {
    await visit(page, `${cli.url}#/captures/${CHECKOUT_ID}/http`);
    await page.waitForSelector('[data-testid=http-tab]');
    const groups = async () =>
      page
        .locator('[data-testid=group-row]')
        .evaluateAll((rows) =>
          rows.map(
            (r) =>
              `${r.querySelector('[data-testid=group-key]')?.textContent?.trim()} ${r.querySelector('.group-stats')?.textContent?.replace(/\s+/g, ' ').trim()}`,
          ),
        );

    await page.click('[data-testid=group-host]');
    const byHost = await groups();
    assert.equal(byHost.length, 9);
    const pricing = byHost.find((text) => text.startsWith('pricing.test'));
    assert.ok(pricing, 'a pricing.test group');
    assert.match(pricing, /3 calls/);
    assert.match(pricing, /1 failed/);
    assert.match(pricing, /total 315 ms/);
    assert.match(pricing, /avg 105 ms/);
    assert.match(pricing, /max 128 ms/);
    assert.match(pricing, /p50 105 ms p95 128 ms/);

    await page.click('[data-testid=group-endpoint]');
    assert.ok((await groups()).some((text) => text.startsWith('GET https://pricing.test/v2/quotes/{id}') && /3 calls/.test(text)));

    await page.click('[data-testid=group-pool]');
    const byPool = await groups();
    assert.ok(byPool.some((text) => text.startsWith('pool #1') && /3 calls/.test(text)));
    assert.ok(byPool.some((text) => text.startsWith('not pooled') && /9 calls/.test(text)));

    await page.click('[data-testid=group-status]');
    const byStatus = await groups();
    assert.ok(byStatus.some((text) => text.startsWith('failed') && /1 call(?!s)/.test(text)));
    assert.ok(byStatus.some((text) => text.startsWith('200') && /8 calls/.test(text)));

    // Folding a group hides its rows.
    const before = await page.locator('[data-testid=http-row]').count();
    await page
      .locator('[data-testid=group-row]')
      .filter({ has: page.locator('[data-testid=group-key]', { hasText: /^200$/ }) })
      .click();
    assert.equal(await page.locator('[data-testid=http-row]').count(), before - 8);
    await page.click('[data-testid=group-none]');
  });

  it('unfolds a row to URL, timing waterfall, headers, payload, response, raw body and code line; copies URL, curl and fetch', async () => {
    await visit(page, `${cli.url}#/captures/${CHECKOUT_ID}/http`);
    await page.click('[data-testid=http-row][data-row="0"]');
    const detail = page.locator('[data-testid=row-detail][data-row="0"]');
    await detail.waitFor();
    assert.equal(await detail.locator('[data-testid=full-url]').textContent(), 'https://api.payments.test/v1/payment_intents');
    const waterfall = (await detail.locator('[data-testid=waterfall]').textContent()) ?? '';
    for (const label of ['DNS', 'Connect', 'TLS', 'Waiting', 'Download', '93.184.216.34:443', 'HTTP/1.1'])
      assert.ok(waterfall.includes(label), `waterfall shows ${label}`);
    assert.match((await detail.locator('[data-testid=request-headers]').textContent()) ?? '', /idempotency-key\s*c1b2-77aa/);
    assert.match((await detail.locator('[data-testid=request-payload]').textContent()) ?? '', /card_token\s*\*{8}/);
    assert.match((await detail.locator('[data-testid=response]').textContent()) ?? '', /JsonCapture/);
    await detail.locator('[data-testid=raw-body] summary').click();
    const raw = (await detail.locator('[data-testid=raw-body] pre').textContent()) ?? '';
    assert.ok(raw.includes('{\n  "id": "pi_3Nq2",'), 'raw JSON body is pretty-printed');
    assert.match((await detail.locator('[data-testid=origin]').textContent()) ?? '', /src\/payments\/charge\.ts:27/);

    await detail.locator('[data-testid=raw-body] summary').click();

    // Each button says it copied (for 1.2 s): read as it is said, not after other steps on a loaded machine.
    for (const button of ['copy-url', 'copy-curl', 'copy-fetch']) {
      await detail.locator(`[data-testid=${button}]`).click();
      await detail.locator(`[data-testid=${button}]`, { hasText: 'Copied' }).waitFor();
    }
    await page.waitForFunction(() => (window as unknown as { __copied: string[] }).__copied.length >= 3);
    const copied = await page.evaluate(() => (window as unknown as { __copied: string[] }).__copied);
    assert.equal(copied[0], 'https://api.payments.test/v1/payment_intents');
    assert.equal(
      copied[1],
      `curl -X POST 'https://api.payments.test/v1/payment_intents' -H 'content-type: application/json' -H 'authorization: ********' -H 'idempotency-key: c1b2-77aa' --data-raw '{"amount":4200,"currency":"eur","customer":"cus_81f2","card_token":"********"}'`,
    );
    assert.equal(
      copied[2],
      [
        'fetch("https://api.payments.test/v1/payment_intents", {',
        '  method: "POST",',
        '  headers: {',
        '    "content-type": "application/json",',
        '    "authorization": "********",',
        '    "idempotency-key": "c1b2-77aa",',
        '  },',
        '  body: "{\\"amount\\":4200,\\"currency\\":\\"eur\\",\\"customer\\":\\"cus_81f2\\",\\"card_token\\":\\"********\\"}",',
        '});',
      ].join('\n'),
    );
  });

  it('shows the exception chain of a failed connection, redirects, and a faked call without timing', async () => {
    await visit(page, `${cli.url}#/captures/${CHECKOUT_ID}/http/5`);
    const failed = page.locator('[data-testid=row-detail][data-row="5"]');
    await failed.waitFor();
    const exception = (await failed.locator('[data-testid=exception]').textContent()) ?? '';
    assert.match(exception, /TypeError/);
    assert.match(exception, /fetch failed/);
    assert.match(exception, /caused by\s*Error\s*ECONNREFUSED\s*connect ECONNREFUSED 127\.0\.0\.1:9/);
    assert.match((await failed.locator('[data-testid=no-timing]').textContent()) ?? '', /connection could not be opened \(ECONNREFUSED\)/);

    await page.click('[data-testid=http-row][data-row="7"]');
    const redirected = (await page.locator('[data-testid=row-detail][data-row="7"] [data-testid=waterfall]').textContent()) ?? '';
    assert.match(redirected, /Redirects\s*41\.2 ms/);
    assert.match(redirected, /Redirects2/);

    await page.click('[data-testid=http-row][data-row="8"]');
    assert.match((await page.locator('[data-testid=row-detail][data-row="8"] [data-testid=no-timing]').textContent()) ?? '', /fake/);

    await page.click('[data-testid=http-row][data-row="9"]');
    assert.match(
      (await page.locator('[data-testid=row-detail][data-row="9"] [data-testid=request-payload]').textContent()) ?? '',
      /graphql\s*query \{\n  viewer/,
    );
  });

  it('renders recorded <script> and onerror payloads as inert text', async () => {
    await visit(page, cli.url);
    await page.waitForSelector(`[data-testid=capture-row][data-id=${XSS_NAME_ID}]`);
    assert.match((await page.textContent(`[data-testid=capture-row][data-id=${XSS_NAME_ID}]`)) ?? '', /<img src=x onerror=/);
    await visit(page, `${cli.url}#/captures/${CHECKOUT_ID}/http/10`);
    const hostile = page.locator('[data-testid=row-detail][data-row="10"]');
    await hostile.waitFor();
    await hostile
      .locator('[data-testid=raw-body] summary')
      .click()
      .catch(() => undefined);
    await page.click('[data-testid=http-row][data-row="11"]');
    await page.click('[data-testid=tab-timeline]');
    await page.waitForSelector('[data-testid=timeline]');
    await visit(page, `${cli.url}#/captures/${CHECKOUT_ID}/http/10`);
    await hostile.waitFor();
    const text = (await hostile.textContent()) ?? '';
    assert.ok(text.includes('<script>window.__probeXss = 1; alert(1)</script>'), 'the script is shown as text');
    assert.ok(text.includes('<img src=x onerror="window.__probeXss = 2; alert(2)">'), 'the img is shown as text');
    await page.waitForTimeout(300); // give a would-be onerror handler its chance to run
    assert.equal(await page.evaluate(() => (window as unknown as { __probeXss?: number }).__probeXss), undefined);
    assert.equal(await page.locator('img[src=x], #app script').count(), 0);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(pageErrors, []);
  });

  it('stays usable with a 1,000-row capture: all rows, grouping, unfolding the last row', async () => {
    await visit(page, `${cli.url}#/captures/${BIG_ID}/http`);
    await page.waitForSelector('[data-testid=http-tab]');
    // Rows are rendered in chunks, one per frame, so the page never freezes: wait for all of them.
    const rowsShown = (count: number) => page.waitForFunction((n) => document.querySelectorAll('[data-testid=http-row]').length === n, count);
    await rowsShown(1000);
    await page.click('[data-testid=group-host]');
    await rowsShown(1000);
    const groups = await page.locator('[data-testid=group-count]').allTextContents();
    assert.deepEqual(groups, ['250', '250', '250', '250']);
    await page.click('[data-testid=group-none]');
    await page.click('[data-testid=http-row][data-row="999"]');
    await page.locator('[data-testid=row-detail][data-row="999"]').waitFor();
    await page.fill('[data-testid=http-filter]', 'catalog.test');
    await rowsShown(250);
    // Opening a call from the timeline unfolds it and scrolls it into view.
    await visit(page, `${cli.url}#/captures/${BIG_ID}/timeline`);
    await page.locator('[data-testid=tl-http]').nth(640).click();
    await page.locator('[data-testid=row-detail]').waitFor();
    assert.match(page.url(), /\/http\/\d+$/);
  });

  it('refuses a Host header other than the bound host (DNS rebinding), in the browser and over HTTP', async () => {
    const rebinding = await browser.newPage();
    try {
      const response = await rebinding.goto(`http://${REBIND_HOST}:${cli.port}/`);
      assert.equal(response?.status(), 403);
      assert.match((await rebinding.textContent('body')) ?? '', /Host header not allowed/);
      const api = await rebinding.goto(`http://${REBIND_HOST}:${cli.port}/api/captures`);
      assert.equal(api?.status(), 403);
    } finally {
      await rebinding.close();
    }
    assert.equal((await rawGet(cli.port, '/api/captures', { host: `evil.test:${cli.port}` })).status, 403);
    assert.equal((await rawGet(cli.port, '/api/captures', { host: `127.0.0.1:1` })).status, 403);
    assert.equal((await rawGet(cli.port, '/api/captures', { host: `localhost:${cli.port}` })).status, 200);
  });

  it('serves a read-only JSON API with strict headers and validated ids', async () => {
    const list = await rawGet(cli.port, '/api/captures');
    assert.equal(list.status, 200, list.body);
    assert.match(String(list.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(list.headers['x-content-type-options'], 'nosniff');
    assert.ok((JSON.parse(list.body) as unknown[]).length >= 7);
    const one = await rawGet(cli.port, `/api/captures/${CHECKOUT_ID}`);
    assert.equal((JSON.parse(one.body) as Capture).name, 'GET /checkout');
    assert.equal((await rawGet(cli.port, '/api/captures/..%2F..%2Fpackage')).status, 400);
    assert.equal((await rawGet(cli.port, '/api/captures/unknown-capture-id')).status, 404);
    assert.equal((await rawGet(cli.port, '/api/captures', {}, 'POST')).status, 405);
    const page = await rawGet(cli.port, '/');
    assert.match(page.body, /<script type="module" src="\/assets\/app\.js"><\/script>/);
    assert.doesNotMatch(page.body, /https?:\/\/(?!127)/, 'nothing is loaded from the network');
    const js = await rawGet(cli.port, '/assets/app.js');
    assert.equal(js.status, 200, js.body);
    assert.match(String(js.headers['content-type']), /javascript/);
  });
});

describe('probe dashboard --token', () => {
  let app: FixtureApp;
  let cli: RunningCli;
  let browser: Browser;

  before(async () => {
    app = new FixtureApp();
    app.add(...allFixtureCaptures());
    cli = await startDashboardCli(app, ['--port', '0', '--token', 's3cret-token'], { lifetime: 'file' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('requires the token, takes it once from the printed URL, then from its cookie', async () => {
    assert.match(cli.url, /\?token=s3cret-token$/);
    assert.equal((await rawGet(cli.port, '/api/captures')).status, 401);
    assert.equal((await rawGet(cli.port, '/api/captures', { 'x-probe-token': 'wrong' })).status, 401);
    assert.equal((await rawGet(cli.port, '/api/captures', { authorization: 'Bearer s3cret-token' })).status, 200);
    const { page } = await openPage(browser);
    await visit(page, cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    assert.equal(new URL(page.url()).search, '', 'the token leaves the address bar');
    assert.equal(await page.locator('[data-testid=capture-row]').count(), 7);
    await page.click(`[data-testid=capture-row][data-id=${CHECKOUT_ID}]`);
    await page.waitForSelector('[data-testid=capture-header]');
  });
});
