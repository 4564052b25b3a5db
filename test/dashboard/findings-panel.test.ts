import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { Capture } from '../../src/capture/types';
import { TestApp, eventually, waitForLine } from '../helpers/app';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchBrowser, openPage, startDashboardCli } from './harness';

// A real server under the preload: /checkout makes an N+1 loop, a duplicate and two calls one after the other;
// /ping makes one call. What the dashboard shows is checked against `probe show --json` and `probe list
// --findings --json` (the same findings, read by the CLI).
const SERVER = `const http = require('node:http');
const UP = process.env.UP;
const server = http.createServer(async (req, res) => {
  if (req.url === '/checkout') {
    for (let i = 1; i <= 5; i++) await fetch(UP + '/json?item=' + i).then((r) => r.json());
    await fetch(UP + '/text').then((r) => r.text());
    await fetch(UP + '/text').then((r) => r.text());
    await fetch(UP + '/headers').then((r) => r.json());
  } else {
    await fetch(UP + '/html').then((r) => r.text());
  }
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

interface Found {
  kind: string;
  rows: number[];
}

describe('findings in the dashboard: a folded panel, marks for the opened finding only, a list column and filter (real Chromium)', () => {
  let upstream: { url: string; close(): Promise<void> };
  let browser: Browser;
  before(async () => {
    // Real latency (40 ms an answer): each finding's cost clears the floor under which the dashboard, as probe show,
    // leaves a finding out.
    const server = http.createServer((req, res) =>
      setTimeout(() => res.setHeader('content-type', 'application/json').end(JSON.stringify({ url: req.url })), 40),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await upstream?.close();
  });

  test('panel, marks, column and filter', async () => {
    const app = new TestApp({ 'server.js': SERVER });
    const child = app.spawn('server.js', { env: { UP: upstream.url } });
    const [, port] = await waitForLine(child, /listening (\d+)/);
    for (const path of ['/checkout', '/ping']) assert.equal(await (await fetch(`http://127.0.0.1:${port}${path}`)).text(), 'ok');
    const [checkout, ping] = await eventually(() => {
      const stored = app.captures();
      const both = ['GET /checkout', 'GET /ping'].map((name) => stored.find((capture) => capture.name === name));
      return both.every(Boolean) && (both as Capture[]);
    });
    child.kill();

    // The oracle: the findings the CLI reads for each capture.
    const findingsOf = async (id: string): Promise<Found[]> => JSON.parse((await app.cli(['show', id, '--json'])).stdout).findings;
    const found = await findingsOf(checkout!.id);
    const pingFound = await findingsOf(ping!.id);
    const withFindings = JSON.parse((await app.cli(['list', '--findings', '--json'])).stdout).captures.map((row: { id: string }) => row.id);
    assert.ok(found.length >= 2, JSON.stringify(found));
    const nPlusOne = found.findIndex((finding) => finding.kind === 'n_plus_one');
    const duplicate = found.findIndex((finding) => finding.kind === 'duplicate');
    assert.ok(nPlusOne >= 0 && duplicate >= 0, JSON.stringify(found));
    // Rows some finding names: the marks an unopened panel must not put on the table.
    const named = new Set(found.flatMap((finding) => finding.rows));
    assert.ok(named.size >= 7);

    const cli = await startDashboardCli(app);
    const { page, errors } = await openPage(browser);
    try {
      // The list: a findings column with each capture's count, and a filter.
      await page.goto(cli.url);
      await page.waitForSelector(`[data-testid=capture-row][data-id="${ping!.id}"] [data-testid=capture-findings][data-count="${pingFound.length}"]`);
      const cell = page.locator(`[data-testid=capture-row][data-id="${checkout!.id}"] [data-testid=capture-findings]`);
      await page.waitForSelector(`[data-testid=capture-row][data-id="${checkout!.id}"] [data-testid=capture-findings][data-count="${found.length}"]`);
      assert.equal((await cell.textContent())?.trim(), String(found.length));
      for (const label of ['N+1', 'Duplicate']) assert.match((await cell.getAttribute('title')) ?? '', new RegExp(label.replace('+', '\\+')));
      await page.check('[data-testid=findings-only]');
      await eventually(async () => (await page.locator('[data-testid=capture-row]').count()) === withFindings.length);
      assert.deepEqual(await page.locator('[data-testid=capture-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id'))), withFindings);
      await page.uncheck('[data-testid=findings-only]');
      await eventually(async () => (await page.locator('[data-testid=capture-row]').count()) === 2);

      // The capture page: the panel folded to its title line, and no row marked.
      await page.goto(`${cli.url}#/captures/${checkout!.id}/http`);
      await page.waitForSelector('[data-testid=findings]');
      await page.waitForSelector('[data-testid=http-tab]');
      assert.equal(await page.locator('[data-testid=findings]').evaluate((node) => node.hasAttribute('open')), false);
      assert.match((await page.textContent('[data-testid=findings-summary]')) ?? '', new RegExp(`Findings\\s*${found.length}`));
      assert.equal(await page.locator('[data-testid=finding-open]').first().isVisible(), false);
      assert.equal(await page.locator('[data-testid=row-finding]').count(), 0, 'no finding opened: no marks');

      const marked = () =>
        page
          .locator('[data-testid=http-row]:has([data-testid=row-finding])')
          .evaluateAll((rows) =>
            rows.map((row) => [Number(row.getAttribute('data-row')), row.querySelector('[data-testid=row-finding]')!.getAttribute('data-kind')]),
          );
      const expectMarks = async (index: number) => {
        const finding = found[index]!;
        const expected = finding.rows.map((row) => [row, finding.kind]).sort((a, b) => Number(a[0]) - Number(b[0]));
        await eventually(async () => JSON.stringify(await marked()) === JSON.stringify(expected));
      };

      // Unfold, open the N+1: exactly its rows are marked.
      await page.click('[data-testid=findings-summary]');
      const item = (index: number) => page.locator('[data-testid=finding]').nth(index);
      await item(nPlusOne).locator('[data-testid=finding-open]').click();
      assert.equal(await item(nPlusOne).getAttribute('data-open'), 'true');
      await expectMarks(nPlusOne);
      // Another finding replaces it; opening it again clears the marks.
      await item(duplicate).locator('[data-testid=finding-open]').click();
      assert.equal(await item(nPlusOne).getAttribute('data-open'), 'false');
      await expectMarks(duplicate);
      await item(duplicate).locator('[data-testid=finding-open]').click();
      await eventually(async () => (await page.locator('[data-testid=row-finding]').count()) === 0);

      // A row link opens its finding and the HTTP tab at that call.
      const row = found[nPlusOne]!.rows[2]!;
      await item(nPlusOne).locator('[data-testid=finding-row]').nth(2).click();
      await eventually(() => page.url().endsWith(`/http/${row}`));
      await expectMarks(nPlusOne);

      // Compare with a baseline of another unit: said above the diff; with one of the same unit, nothing.
      assert.equal((await app.cli(['baseline', 'save', ping!.id, 'pinger'])).code, 0);
      assert.equal((await app.cli(['baseline', 'save', checkout!.id, 'checkout'])).code, 0);
      await page.goto(`${cli.url}#/captures/${checkout!.id}/compare`);
      await page.waitForSelector('[data-testid=compare-to] option[value="baseline:pinger"]', { state: 'attached' });
      await page.selectOption('[data-testid=compare-to]', 'baseline:pinger');
      await page.waitForSelector('[data-testid=compare-other-name]');
      assert.match(
        (await page.textContent('[data-testid=compare-other-name]')) ?? '',
        /Baseline pinger was saved from GET \/ping, not GET \/checkout: this diff compares two different units\./,
      );
      await page.selectOption('[data-testid=compare-to]', 'baseline:checkout');
      await page.waitForSelector('[data-testid=diff-summary]:has-text("Same")');
      assert.equal(await page.locator('[data-testid=compare-other-name]').count(), 0);

      // The panel stays unfolded across a reload, as it was left.
      await page.goto(`${cli.url}#/captures/${checkout!.id}/http`);
      await page.reload();
      await page.waitForSelector('[data-testid=findings]');
      assert.equal(await page.locator('[data-testid=findings]').evaluate((node) => node.hasAttribute('open')), true);
      assert.equal(await page.locator('[data-testid=row-finding]').count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await page.context().close();
      await cli.stop();
    }
  });
});
