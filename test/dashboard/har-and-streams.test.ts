import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { Capture } from '../../src/capture/types';
import type { CallInput, UnitInput } from '../../src/builder/input';
import type { Har } from '../../src/export/harTypes';
import { buildCapture } from '../../src/builder/buildCapture';
import { resolveConfig } from '../../src/config/resolve';
import { FixtureApp, launchBrowser, openPage, startDashboardCli, type RunningCli } from './harness';
import { allFixtureCaptures, CHECKOUT_ID } from './fixture-captures';
import { anthropicStream, hostileStream } from '../response/sse-server';
import { harErrors } from '../export/har-schema';

// Browser globals used inside page.evaluate callbacks (tests are type-checked without the DOM lib).
declare const window: Record<string, unknown>;

const STREAM_ID = 'streamcapture0001';
const HOSTILE = '<img src=x onerror="window.__pwned=true">';

/** A capture built by the real builder from two streamed responses (Anthropic-style, and hostile event data). */
function streamCapture(): Capture {
  const T0 = Date.now();
  const streamed = (n: number, path: string, text: string): CallInput => ({
    spanId: `s${n}`,
    parentSpanId: null,
    method: 'POST',
    url: `https://llm.test${path}`,
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: null,
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream' },
    responseBody: { chunks: [Buffer.from(text)], size: Buffer.byteLength(text), truncated: false },
    clientDecodes: true,
    start: T0 + n,
    end: T0 + n + 50,
    timing: { wait: 20, download: 30, remote: '127.0.0.1:443', protocol: 'HTTP/1.1', redirects: 0 },
    error: null,
    pool: null,
    fake: false,
    origin: null,
  });
  const unit: UnitInput = {
    id: STREAM_ID,
    type: 'request',
    name: 'POST /chat',
    status: '200',
    parentId: null,
    traceId: 'e'.repeat(32),
    linkedVia: null,
    rootSpanId: null,
    startedAt: T0,
    endedAt: T0 + 120,
    endedBy: 'response',
    label: null,
    tags: [],
    jobId: null,
    meta: { pid: 1, hostname: 'h', node: 'v20', service: 's' },
    request: null,
    spans: [],
    calls: [streamed(1, '/v1/messages', anthropicStream().join('')), streamed(2, '/v1/events', hostileStream().join(''))],
    pools: [],
  };
  return buildCapture(unit, resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }));
}

async function openHttpTab(page: Page, url: string, id: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${url}#/captures/${id}/http`);
  await page.waitForSelector('[data-testid=http-tab]');
}

describe('dashboard: Download HAR, mock downloads and streamed responses (real Chromium)', () => {
  let app: FixtureApp;
  let cli: RunningCli;
  let browser: Browser;
  let page: Page;
  let dialogs: string[];
  let errors: string[];

  before(async () => {
    app = new FixtureApp();
    app.add(...allFixtureCaptures(), streamCapture());
    cli = await startDashboardCli(app, undefined, { lifetime: 'file' });
    browser = await launchBrowser();
    ({ page, dialogs, errors } = await openPage(browser));
  });

  after(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('"Download HAR" saves the capture as a HAR file that validates and that Chromium replays', async () => {
    await openHttpTab(page, cli.url, CHECKOUT_ID);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=download-har]')]);
    assert.equal(download.suggestedFilename(), `probe-${CHECKOUT_ID}.har`);
    const file = await download.path();
    const har = JSON.parse(readFileSync(file, 'utf8')) as Har;
    assert.deepEqual(harErrors(har), []);
    const checkout = allFixtureCaptures().find((c) => c.id === CHECKOUT_ID)!;
    assert.equal(har.log.entries.length, checkout.sections.http!.length);
    assert.equal(har.log.pages[0]!.id, CHECKOUT_ID);

    // Playwright's HAR replay in a fresh Chromium context answers a recorded GET from the file alone (no such host exists).
    const entry = har.log.entries.find((e) => e.request.method === 'GET' && e.response.status === 200 && e.response.content.text)!;
    const replay = await browser.newContext();
    try {
      await replay.routeFromHAR(file, { notFound: 'abort' });
      const replayPage = await replay.newPage();
      const response = await replayPage.goto(entry.request.url);
      assert.equal(response?.status(), 200);
      assert.equal(await response?.text(), entry.response.content.text);
    } finally {
      await replay.close();
    }
  });

  it('offers the capture as MSW, nock and undici snapshot downloads: the same files `probe export <id>` writes', async () => {
    await openHttpTab(page, cli.url, CHECKOUT_ID);
    const starts: Record<string, RegExp> = {
      msw: /^\/\/ MSW 2 request handlers recorded by Probe\. Masked values \(\*{8}\) stay masked\.\n[^]*\nexport const recordedFrom = "capture \S+, [^"]*";\n/,
      nock: /^\[\n  \{\n    "scope": "https:\/\/api\.payments\.test",\n    "method": "POST",/,
      'undici-snapshot': /^\[\n  \{\n    "hash": "[\w-]+",\n    "snapshot": \{\n      "request": \{\n        "method": "POST",/,
    };
    const names = { msw: 'handlers.mjs', nock: 'nock.json', 'undici-snapshot': 'undici-snapshot.json' };
    // undici's entries carry the time they were written; everything else is byte for byte the CLI's file.
    const untimed = (text: string) => text.replace(/"timestamp": "[^"]+"/g, '"timestamp": "T"');
    for (const format of ['msw', 'nock', 'undici-snapshot'] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=download-${format}]`)]);
      assert.equal(download.suggestedFilename(), `probe-${CHECKOUT_ID}.${names[format]}`);
      const text = readFileSync(await download.path(), 'utf8');
      assert.match(text, starts[format]!, format);
      assert.ok(text.includes('********') || format === 'undici-snapshot', 'masked values stay masked');
      const exported = await app.cli(['export', CHECKOUT_ID, `--${format}`]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(untimed(exported.stdout).trimEnd(), untimed(text).trimEnd(), `${format}: same text as probe export`);
    }
    // What the page never links to is refused, not guessed.
    const unknown = await page.request.get(`${cli.origin}/api/captures/${CHECKOUT_ID}/mocks/har`);
    assert.equal(unknown.status(), 404);
  });

  it('a streamed response shows its events, the assembled text and usage, as text', async () => {
    await openHttpTab(page, cli.url, STREAM_ID);
    await page.click('[data-testid=http-row][data-row="0"]');
    const detail = page.locator('[data-testid=row-detail][data-row="0"]');
    await detail.locator('[data-testid=event-stream]').waitFor();
    assert.equal(await detail.locator('[data-testid=sse-count]').textContent(), '8');
    assert.equal(await detail.locator('[data-testid=sse-text]').textContent(), 'Bonjour le monde');
    assert.match((await detail.locator('[data-testid=sse-usage]').textContent()) ?? '', /"output_tokens"/);
    assert.equal(await detail.locator('[data-testid=sse-event]').count(), 8);
    assert.match((await detail.locator('[data-testid=sse-event]').nth(3).textContent()) ?? '', /content_block_delta[\s\S]*"Bonjour"/);
  });

  it('hostile event data never becomes HTML', async () => {
    await openHttpTab(page, cli.url, STREAM_ID);
    await page.click('[data-testid=http-row][data-row="1"]');
    const detail = page.locator('[data-testid=row-detail][data-row="1"]');
    await detail.locator('[data-testid=event-stream]').waitFor();
    await detail.locator('details.raw summary').first().click();
    const text = (await detail.locator('[data-testid=event-stream]').textContent()) ?? '';
    assert.ok(text.includes(HOSTILE.replace(/"/g, '\\"')), 'the markup shows as characters');
    assert.ok(text.includes('plain <b>text</b> line one'));
    assert.ok(text.includes('"token": "********"'));
    assert.ok(!text.includes('sse-secret-token'));
    assert.equal(await detail.locator('img').count(), 0);
    assert.equal(await detail.locator('b', { hasText: 'text' }).count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
  });
});
