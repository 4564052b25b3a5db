import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAllowedHost, parseHostHeader, tokenMatches } from '../../src/dashboard/guard';
import { curlOf, shellQuote } from '../../src/dashboard/ui/curl';
import { groupRows, filterRows } from '../../src/dashboard/ui/groups';
import { buildTimeline, httpCoveredMs } from '../../src/dashboard/ui/timeline';
import { bigCapture, checkoutCapture, row } from './fixture-captures';

describe('dashboard pure parts', () => {
  it('accepts only the bound host (and loopback aliases when bound to loopback) on the bound port', () => {
    assert.deepEqual(parseHostHeader('[::1]:4400'), { name: '::1', port: '4400' });
    assert.equal(isAllowedHost('127.0.0.1:4400', '127.0.0.1', 4400), true);
    assert.equal(isAllowedHost('localhost:4400', '127.0.0.1', 4400), true);
    assert.equal(isAllowedHost('[::1]:4400', '127.0.0.1', 4400), true);
    assert.equal(isAllowedHost('attacker.test:4400', '127.0.0.1', 4400), false);
    assert.equal(isAllowedHost('127.0.0.1:4401', '127.0.0.1', 4400), false);
    assert.equal(isAllowedHost(undefined, '127.0.0.1', 4400), false);
    assert.equal(isAllowedHost('devbox.lan:4400', 'devbox.lan', 4400), true);
    assert.equal(isAllowedHost('localhost:4400', 'devbox.lan', 4400), false);
    assert.equal(isAllowedHost('192.168.1.20:4400', '0.0.0.0', 4400), true);
    assert.equal(isAllowedHost('rebind.attacker.test:4400', '0.0.0.0', 4400), false);
    assert.equal(tokenMatches('abc', 'abc'), true);
    assert.equal(tokenMatches('abd', 'abc'), false);
    assert.equal(tokenMatches(null, 'abc'), false);
  });

  it('builds curl commands that keep masked values masked and quote safely', () => {
    assert.equal(shellQuote(`it's`), `'it'\\''s'`);
    const form = row({
      method: 'POST',
      url: 'https://a.test/login',
      request_headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '30', cookie: '********' },
      request_payload: { user: "o'neil", password: '********' },
    });
    assert.equal(
      curlOf(form),
      `curl -X POST 'https://a.test/login' -H 'content-type: application/x-www-form-urlencoded' -H 'cookie: ********' --data-raw 'user=o%27neil&password=********'`,
    );
    assert.equal(curlOf(row({ method: 'GET', url: 'https://a.test/x', request_headers: {}, timing: { redirects: 2 } })), `curl 'https://a.test/x' -L`);
  });

  it('groups with count, failed, total, avg and max', () => {
    const rows = checkoutCapture().sections.http!;
    const byPool = groupRows(rows, filterRows(rows, '', false), 'pool');
    const pool = byPool.find((group) => group.key === 'pool #1')!;
    assert.equal(pool.count, 3);
    assert.equal(pool.failed, 1);
    assert.equal(pool.total, 315);
    assert.equal(pool.avg, 105);
    assert.equal(pool.max, 127.5);
    assert.equal(pool.p50, 105);
    assert.equal(pool.p95, 127.5);
    assert.equal(filterRows(rows, '', true).length, 4);
  });

  it('lays out the timeline with calls under their pool, and counts overlapping calls once', () => {
    const items = buildTimeline(checkoutCapture());
    const pool = items.findIndex((item) => item.kind === 'pool');
    assert.equal(items[pool]!.label, 'pool #1');
    assert.deepEqual(
      items.slice(pool + 1, pool + 4).map((item) => [item.kind, item.depth]),
      [
        ['http', items[pool]!.depth + 1],
        ['http', items[pool]!.depth + 1],
        ['http', items[pool]!.depth + 1],
      ],
    );
    // Without spans, rows still show, grouped under synthetic pool rows.
    const big = buildTimeline(bigCapture());
    assert.equal(big.filter((item) => item.kind === 'pool').length, 10);
    assert.equal(big.filter((item) => item.kind === 'http').length, 1000);
    assert.equal(
      httpCoveredMs(
        [
          row({ method: 'GET', url: 'https://a.test/', time: 0, duration: 10 }),
          row({ method: 'GET', url: 'https://a.test/', time: 5, duration: 10 }),
          row({ method: 'GET', url: 'https://a.test/', time: 30, duration: 5 }),
        ],
        100,
      ),
      20,
    );
  });
});
