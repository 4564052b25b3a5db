import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { connectMcp } from '../helpers/mcp';
import { FixtureApp, launchBrowser, openPage, startDashboardCli, type RunningCli } from './harness';
import { allFixtureCaptures, CHECKOUT_ID } from './fixture-captures';

/** The row number a person reads in the dashboard is the `row` the CLI prints and the agent tools take. */
describe('rows are numbered the same way in the dashboard (real Chromium), the CLI and the MCP tools', () => {
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

  /** `number url` of each call as the HTTP tab shows it. */
  async function dashboardRows(): Promise<string[]> {
    return page
      .locator('[data-testid=http-row]')
      .evaluateAll((rows) =>
        rows.map((r) => `${r.querySelector('[data-testid=row-number]')?.textContent?.trim()} ${r.querySelector('.url')?.getAttribute('title')}`),
      );
  }

  it('the HTTP tab, ungrouped and grouped, shows each call under the number probe rows and probe-rows give it', async () => {
    await page.goto(`${cli.url}#/captures/${CHECKOUT_ID}/http`);
    await page.waitForSelector('[data-testid=http-tab]');
    const shown = await dashboardRows();
    assert.equal(shown.length, 12);
    assert.match(shown[0]!, /^0 /);

    const json = await app.cli(['rows', CHECKOUT_ID, '--fields', 'row,url', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const fromCli = JSON.parse(json.stdout).rows.map((r: { row: number; url: string }) => `${r.row} ${r.url}`);
    assert.deepEqual(shown, fromCli);
    const table = await app.cli(['rows', CHECKOUT_ID, '--fields', 'url']);
    // The table's ROW column (cells there are cut at 80 characters, so only the numbers and hosts are compared).
    const tableRows = table.stdout.split('\n').flatMap((line) => /^(\d+)\s+(https?:\/\/[^/]+)/.exec(line)?.slice(1, 3).join(' ') ?? []);
    assert.deepEqual(
      tableRows,
      fromCli.map((text: string) => /^\d+ https?:\/\/[^/]+/.exec(text)![0]),
    );

    const mcp = await connectMcp(app);
    try {
      const tool = await mcp.call('probe-rows', { id: CHECKOUT_ID, fields: ['row', 'url'] });
      assert.deepEqual(
        tool.json.rows.map((r: { row: number; url: string }) => `${r.row} ${r.url}`),
        fromCli,
      );
      // The number read off the dashboard opens that call in probe-show.
      const [number, url] = shown[5]!.split(' ');
      const one = await mcp.call('probe-show', { id: CHECKOUT_ID, row: Number(number) });
      assert.equal(one.json.data.url, url);
    } finally {
      await mcp.close();
    }

    // Grouped, a call keeps its number.
    await page.click('[data-testid=group-status]');
    await page.waitForSelector('[data-testid=group-row]');
    const grouped = await dashboardRows();
    assert.equal(grouped.length, 12);
    assert.deepEqual([...grouped].sort(), [...fromCli].sort());
    assert.notDeepEqual(grouped, fromCli, 'grouping by status reorders the calls');
  });
});
