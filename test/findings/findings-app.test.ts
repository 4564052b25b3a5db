import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { TestApp, eventually, waitForLine } from '../helpers/app';
import { connectMcp } from '../helpers/mcp';
import { launchBrowser, openPage, startDashboardCli } from '../dashboard/harness';

// A real server under the preload whose request makes an N+1 loop, a duplicate call, a retry after a 503 and
// two independent calls one after the other. Each finding must show with its rows and code lines in
// `probe show`, through the MCP client and in the dashboard (real Chromium).
const SERVER = `const http = require('node:http');
const UP = process.env.UP;
const server = http.createServer(async (req, res) => {
  for (let i = 1; i <= 5; i++) await fetch(UP + '/items/' + i).then((r) => r.json());
  await fetch(UP + '/config').then((r) => r.json());
  await fetch(UP + '/config').then((r) => r.json());
  const first = await fetch(UP + '/flaky');
  await first.text();
  if (!first.ok) await fetch(UP + '/flaky').then((r) => r.text());
  await fetch(UP + '/profile').then((r) => r.json());
  await fetch(UP + '/settings').then((r) => r.json());
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

/** The app line holding `needle` (1-based): where the call was made, read from the source itself. */
function lineOf(needle: string, nth = 1): string {
  const lines = SERVER.split('\n');
  const at = lines.map((line, index) => (line.includes(needle) ? index + 1 : 0)).filter(Boolean);
  return `server.js:${at[nth - 1]}`;
}

const EXPECTED = {
  n_plus_one: { rows: 5, lines: [lineOf("'/items/'")] },
  duplicate: { rows: 2, lines: [lineOf("'/config'"), lineOf("'/config'", 2)] },
  retry: { rows: 2, lines: [lineOf('const first'), lineOf('if (!first.ok)')] },
  sequential: { rows: 2, lines: [lineOf("'/profile'"), lineOf("'/settings'")] },
};

describe('findings of a real request, everywhere they are read', () => {
  let upstream: http.Server;
  let UP = '';
  let flaky = 0;
  let browser: Browser;
  before(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.url?.startsWith('/items/')) return json(200, { sku: `sku-${req.url.slice(7)}` });
        // Real latency where a finding's cost is its time: under the floor (20 ms) it would not be shown.
        if (req.url === '/config') return setTimeout(() => json(200, { theme: 'dark' }), 30);
        if (req.url === '/flaky') return flaky++ === 0 ? json(503, { error: 'busy' }) : json(200, { ok: true });
        if (req.url === '/profile') return setTimeout(() => json(200, { name: 'ada' }), 30);
        if (req.url === '/settings') return setTimeout(() => json(200, { locale: 'en' }), 30);
        json(404, {});
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    UP = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  test('probe show, probe list --findings, probe-show and the dashboard (marks, Compare with…)', async () => {
    const app = new TestApp({ 'server.js': SERVER });
    const child = app.spawn('server.js', { env: { UP } });
    const [, port] = await waitForLine(child, /listening (\d+)/);
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/checkout`)).text(), 'ok');
    const capture = await eventually(() => app.captures().find((c) => c.name === 'GET /checkout'));
    const rows = capture.sections.http!;
    assert.equal(rows.length, 11);

    const json = await app.cli(['show', capture.id, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const findings: any[] = JSON.parse(json.stdout).findings;
    for (const [kind, expected] of Object.entries(EXPECTED)) {
      const found = findings.filter((f) => f.kind === kind);
      assert.equal(found.length, 1, `${kind}: ${JSON.stringify(findings)}`);
      assert.equal(found[0].rows.length, expected.rows, kind);
      assert.deepEqual(found[0].lines, expected.lines, kind);
    }
    // Besides those, only calls slower than usual may be found (that depends on the machine).
    assert.deepEqual(
      findings.filter((f) => !(f.kind in EXPECTED) && f.kind !== 'slow'),
      [],
    );
    const retry = findings.find((f) => f.kind === 'retry');
    assert.deepEqual(
      retry.rows.map((row: number) => rows[row]!.status),
      [503, 200],
    );
    const sequential = findings.find((f) => f.kind === 'sequential');
    assert.deepEqual(
      sequential.rows.map((row: number) => new URL(rows[row]!.url).pathname),
      ['/profile', '/settings'],
    );
    assert.equal(sequential.saving_ms, Math.round(Math.min(...sequential.rows.map((row: number) => rows[row]!.duration!)) * 10) / 10);

    const text = await app.cli(['show', capture.id]);
    const section = text.stdout.slice(text.stdout.indexOf('findings ('), text.stdout.indexOf('\n\n'));
    assert.match(section, /^ {2}N\+1: GET http:\/\/127\.0\.0\.1:\d+\/items\/\{id\} called 5 times from one code line with 5 different ids/m);
    assert.match(section, /^ {2}duplicate: GET http:\/\/127\.0\.0\.1:\d+\/config made 2 times with the same request and the same answer/m);
    assert.match(section, /; costs \d+(\.\d)? ms/);
    assert.match(section, /^ {2}retry: GET http:\/\/127\.0\.0\.1:\d+\/flaky failed \(503\) and was made again once, then answered 200/m);
    assert.match(section, /^ {2}sequential: 2 independent calls made one after another/m);
    for (const expected of Object.values(EXPECTED)) for (const line of expected.lines) assert.ok(section.includes(line), line);
    const listed = await app.cli(['list', '--findings', '--json']);
    assert.deepEqual(
      JSON.parse(listed.stdout).captures.map((row: any) => row.id),
      [capture.id],
    );

    const mcp = await connectMcp(app);
    try {
      const shown = await mcp.call('probe-show', { id: capture.id });
      assert.equal(shown.isError, undefined);
      assert.deepEqual(shown.json.findings, findings);
      assert.ok(Object.keys(shown.json).indexOf('findings') < Object.keys(shown.json).indexOf('sections'), 'findings come before the rows');
    } finally {
      await mcp.close();
    }

    // A second request: /flaky answers at once, so this run makes one call fewer.
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/checkout`)).text(), 'ok');
    const second = await eventually(() => app.captures().find((c) => c.name === 'GET /checkout' && c.id !== capture.id));

    const cli = await startDashboardCli(app);
    const { page, errors } = await openPage(browser);
    try {
      await page.goto(`${cli.url}#/captures/${capture.id}`);
      await page.waitForSelector('[data-testid=findings]');
      assert.equal(await page.textContent('[data-testid=findings-badge]'), `${findings.length} finding${findings.length === 1 ? '' : 's'}`);
      for (const [kind, expected] of Object.entries(EXPECTED)) {
        const item = page.locator(`[data-testid=finding][data-kind=${kind}]`);
        assert.deepEqual(await item.locator('[data-testid=finding-line]').allTextContents(), expected.lines, kind);
        assert.equal(await item.locator('[data-testid=finding-row]').count(), expected.rows, kind);
      }
      await page.click('[data-testid=tab-http]');
      await page.waitForSelector('[data-testid=http-tab]');
      // Rows are marked for the finding opened in the (folded) panel only.
      await page.click('[data-testid=findings-summary]');
      for (const [kind, expected] of Object.entries(EXPECTED)) {
        const found = findings.find((f) => f.kind === kind);
        await page.click(`[data-testid=finding][data-kind=${kind}] [data-testid=finding-open]`);
        for (const row of found.rows) {
          const marks = await page
            .locator(`[data-testid=http-row][data-row="${row}"] [data-testid=row-finding]`)
            .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-kind')));
          assert.ok(marks.includes(kind), `row ${row} marked ${kind}: ${marks.join()}`);
        }
        assert.ok(expected.rows > 0);
      }

      await page.goto(`${cli.url}#/captures/${second.id}/compare`);
      await page.waitForSelector('[data-testid=diff]');
      assert.equal(await page.locator('[data-testid=diff-removed]').count(), 1);
      assert.match((await page.textContent('[data-testid=diff-removed]')) ?? '', /\/flaky/);
      assert.equal(await page.locator('[data-testid=diff-added]').count(), 0);
      assert.equal(await page.locator('[data-testid=waterfall-before] [data-testid=cw-row]').count(), 11);
      assert.equal(await page.locator('[data-testid=waterfall-after] [data-testid=cw-row]').count(), 10);
      assert.equal(await page.locator('[data-testid=waterfall-before] [data-mark=removed]').count(), 1);
      assert.deepEqual(errors, []);
    } finally {
      await page.context().close();
      await cli.stop();
      child.kill();
    }
  });
});
