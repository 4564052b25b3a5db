// The dashboard's capture page across services (real Chromium): a request capture says the call that caused it and
// links to it; that call, unfolded, shows the capture the service that answered it made, inline, and links to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Services, getJson } from './services';
import { whilePossible } from '../helpers/app';
import { FileStore } from '../../src/store/FileStore';
import { launchBrowser, openPage, startDashboardCli } from '../dashboard/harness';

// A browser global used inside page.waitForFunction (tests are type-checked without the DOM lib).
declare const location: { hash: string };

test('the capture page links a request to the call that caused it, and the call to the capture it caused', { timeout: 480_000 }, async (t) => {
  const services = new Services();
  const orders = await services.start('orders');
  const gateway = await services.start('gateway', { next: [orders.url + 'orders'] });
  await getJson(`${gateway.url}checkout?tag=ui`);
  const store = new FileStore({ path: path.join(services.root, '.probe', 'captures'), limit: 100, within: path.join(services.root, '.probe') });
  const [gatewayId, ordersId] = await whilePossible(
    async () => {
      const index = await store.index();
      const byService = Object.fromEntries(index.map((row) => [row.service, row.id]));
      return byService.gateway && byService.orders && [byService.gateway, byService.orders];
    },
    () => gateway.child.exitCode === null && orders.child.exitCode === null,
    'both captures stored',
  );
  const cli = await startDashboardCli(services.app);
  t.after(() => cli.stop());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const { page, errors } = await openPage(browser);
  await page.goto(`${cli.url}#/captures/${ordersId}`);
  const cause = page.locator('[data-testid=caused-by]');
  await cause.waitFor({ timeout: 60_000 });
  assert.match((await cause.textContent()) ?? '', new RegExp(`call 0 of ${gatewayId}`));
  await cause.click();
  const answered = page.locator('[data-testid=answered-by]');
  await answered.waitFor({ timeout: 60_000 });
  assert.equal(await answered.textContent(), ordersId);
  // Shown inline under the call: the other service's capture, its name and status.
  const inline = page.locator('[data-testid=answered-capture]');
  await inline.waitFor({ timeout: 60_000 });
  assert.match((await inline.textContent()) ?? '', /orders\s+GET \/orders\s+· 200/);
  await answered.click();
  await page.waitForFunction((id) => location.hash.includes(id), ordersId);
  assert.deepEqual(errors, []);
});
