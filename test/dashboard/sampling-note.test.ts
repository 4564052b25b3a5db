import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { Capture } from '../../src/capture/types';
import { FixtureApp, launchBrowser, openPage, startDashboardCli, type RunningCli } from './harness';
import { listCaptures } from './fixture-captures';

/** A list capture as a process writing under sampling stores it: `meta.sampling`, copied to its index row. */
function sampled(base: Capture, id: string, startedAt: number, skipped: number): Capture {
  return {
    ...base,
    id,
    name: `GET /sampled-${id}`,
    started_at: startedAt,
    ended_at: startedAt + 0.1,
    meta: { ...base.meta, sampling: { rate: 0.25, max_per_second: 10, skipped } },
  };
}

describe('the captures list says when sampling left units out (real Chromium)', () => {
  let app: FixtureApp;
  let cli: RunningCli;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];

  before(async () => {
    app = new FixtureApp();
    app.add(...listCaptures());
    cli = await startDashboardCli(app, undefined, { lifetime: 'file' });
    browser = await launchBrowser();
    ({ page, errors: pageErrors } = await openPage(browser));
  });
  after(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('no note while no stored capture was sampled; the note with the summed skipped count once some were', async () => {
    await page.goto(cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    assert.equal(await page.locator('[data-testid=capture-row]').count(), 5);
    assert.equal(await page.locator('[data-testid=sampling-note]').count(), 0, 'no sampling, no note');

    // Two captures from processes that sampled, written while the page is open (the list updates live).
    const [health] = listCaptures();
    app.add(sampled(health!, 'sampledcap0001', 1_900_000_000, 7), sampled(health!, 'sampledcap0002', 1_900_000_010, 5));
    const note = page.locator('[data-testid=sampling-note]');
    await note.waitFor({ timeout: 60_000 });
    const expected =
      'Sampling is in effect (rate 0.25, at most 10 per second): 12 request(s), job(s) or command(s) were not recorded besides the stored captures.';
    assert.equal((await note.textContent())?.trim(), expected);
    assert.equal(await page.locator('[data-testid=capture-row]').count(), 7);

    // A fresh load reads it from the index as well.
    await page.goto('about:blank');
    await page.goto(cli.url);
    await page.waitForSelector('[data-testid=capture-row]');
    assert.equal((await page.locator('[data-testid=sampling-note]').textContent())?.trim(), expected);
    assert.deepEqual(pageErrors, []);
  });
});
