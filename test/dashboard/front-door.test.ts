import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { FixtureApp, launchBrowser, openPage, startDashboardCli, type RunningCli } from './harness';
import { allFixtureCaptures, CHECKOUT_ID } from './fixture-captures';
import { editorHref, editorTemplate } from '../../src/dashboard/editorLinks';
import { noTimingReason } from '../../src/dashboard/ui/callKinds';
import type { HttpRow } from '../../src/capture/types';

/** What a newcomer reaches for in the dashboard (real Chromium): sorting, searching calls, reading the colours, opening the code. */
describe('the dashboard: sortable calls, a search across captures, a legend, the code line in the editor', () => {
  let app: FixtureApp;
  let cli: RunningCli;
  let browser: Browser;
  let page: Page;

  before(async () => {
    app = new FixtureApp();
    app.add(...allFixtureCaptures());
    cli = await startDashboardCli(app, undefined, { lifetime: 'file' });
    browser = await launchBrowser();
    ({ page } = await openPage(browser));
  });
  after(async () => {
    await browser?.close();
    await cli?.stop();
  });

  async function column(testid: string, cell: string): Promise<string[]> {
    return page.locator('[data-testid=http-row]').evaluateAll((rows, selector) => rows.map((r) => r.querySelector(selector)?.textContent?.trim() ?? ''), cell);
  }

  it('a header click sorts the calls by that column, a second reverses it, a third restores call order', async () => {
    await page.goto(`${cli.url}#/captures/${CHECKOUT_ID}/http`);
    await page.waitForSelector('[data-testid=http-tab]');
    const numbers = async () => (await column('http-row', '[data-testid=row-number]')).map(Number);
    const durations = async () => (await column('http-row', '.dur-text')).map((text) => (text === '–' || text === '' ? NaN : parseFloat(text)));
    const inOrder = await numbers();
    await page.click('[data-testid=sort-duration]');
    const desc = (await durations()).filter((value) => !Number.isNaN(value));
    assert.deepEqual(
      desc,
      [...desc].sort((a, b) => b - a),
      'longest first',
    );
    assert.equal(await page.getAttribute('[data-testid=sort-duration]', 'aria-sort'), 'descending');
    await page.click('[data-testid=sort-duration]');
    const asc = (await durations()).filter((value) => !Number.isNaN(value));
    assert.deepEqual(
      asc,
      [...asc].sort((a, b) => a - b),
    );
    await page.click('[data-testid=sort-duration]');
    assert.deepEqual(await numbers(), inOrder);
    await page.click('[data-testid=sort-url]');
    const urls = await page.locator('[data-testid=http-row] .url').evaluateAll((cells) => cells.map((c) => c.getAttribute('title') ?? ''));
    assert.deepEqual(
      urls,
      [...urls].sort((a, b) => a.localeCompare(b)),
    );
  });

  it("typing a call's host in the captures filter finds the captures that called it", async () => {
    await page.goto(cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    await page.fill('[data-testid=list-filter]', 'pricing.test');
    await page.waitForSelector('[data-testid=call-matches]');
    const ids = await page.locator('[data-testid=capture-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    assert.ok(ids.includes(CHECKOUT_ID), `${ids.join(', ')}`);
    assert.match((await page.textContent(`[data-testid=capture-row][data-id="${CHECKOUT_ID}"] [data-testid=call-matches]`))!, /3 calls match/);
    const count = await page.textContent('[data-testid=list-count]');
    assert.doesNotMatch(count!, /^0 of/);
  });

  it("the timeline's bars are coloured by phase and by how each call ended, with a legend", async () => {
    await page.goto(`${cli.url}#/captures/${CHECKOUT_ID}/timeline`);
    await page.waitForSelector('[data-testid=timeline-legend]');
    const legend = (await page.textContent('[data-testid=timeline-legend]'))!;
    for (const phase of ['DNS', 'Connect', 'TLS', 'Waiting', 'Download', 'Queued / other']) assert.ok(legend.includes(phase), phase);
    for (const kind of ['5xx server error', 'no response (network failure)', '4xx client error', '2xx answered']) assert.ok(legend.includes(kind), kind);
    const kinds = await page.locator('.tl-bar-call').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-kind')));
    assert.ok(kinds.includes('server-error') && kinds.includes('no-response'), kinds.join(', '));
    assert.ok((await page.locator('.tl-bar-call .wf-wait').count()) > 0, 'a call bar holds its phases');
  });

  it("the code line opens the file at its line in the developer's editor", async () => {
    await page.goto(`${cli.url}#/captures/${CHECKOUT_ID}/http`);
    await page.waitForSelector('[data-testid=code-link]');
    const href = await page.getAttribute('[data-testid=http-row] [data-testid=code-link]', 'href');
    assert.equal(href, `vscode://file${app.dir.split('/').map(encodeURIComponent).join('/')}/src/payments/charge.ts:27`);
    assert.equal(editorHref(editorTemplate('idea')!, '/srv/a b/x.ts', 3), 'idea://open?file=/srv/a%20b/x.ts&line=3');
    assert.equal(editorTemplate('javascript:alert({path})'), null);
    assert.equal(editorTemplate('none'), null);
  });

  it('a call with no timing says why, by the kind of failure', () => {
    const base = { status: null, fake: false, timing: null } as unknown as HttpRow;
    const failed = (code: string, message: string) =>
      noTimingReason({
        ...base,
        exception: { class: 'TypeError', message: 'fetch failed', code: null, file: null, previous: [{ class: 'Error', message, code }] },
      });
    assert.match(failed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), /could not be opened \(ECONNREFUSED\)/);
    assert.match(failed('UND_ERR_SOCKET', 'other side closed'), /was open, then the server closed it/);
    assert.match(failed('ECONNRESET', 'read ECONNRESET'), /was open, then the server closed it/);
    assert.match(failed('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'), /timed out/);
  });
});
