import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collect, REPO_ROOT, type RunResult } from '../helpers/app';
import type { Capture, HttpRow } from '../../src/capture/types';
import { startChild } from '../helpers/child';

/**
 * `npm run example` is the first thing a user runs: every feature the README headlines must show on its own
 * rows (code line, route, timing, masking, a pool, a failed call with its cause, a job, a test capture).
 */
describe('the example', { timeout: 180_000 }, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-example-'));
  let run: RunResult;
  let captures: Capture[];

  after(() => rmSync(root, { recursive: true, force: true }));

  it('runs, and prints probe list', async () => {
    // Its own process group, so the shop and the test run it starts go with it if it is killed.
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', PROBE_ROOT: root };
    // NODE_TEST_CONTEXT would make the example's own `node --test` report to this runner instead of running.
    for (const key of ['PROBE_CONFIG', 'PROBE_STORAGE', 'NODE_TEST_CONTEXT']) delete env[key];
    const child = startChild(process.execPath, ['examples/run-example.mjs'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      run = await collect(child, 150_000);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group has ended
      }
    }
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\$ probe list/);
    // The store the example wrote, read like any app's (PROBE_ROOT points at the temp folder).
    captures = readCaptures(path.join(root, '.probe', 'captures'));
  });

  const rows = (type: string) => captures.filter((c) => c.type === type).flatMap((c) => (c.sections.http as HttpRow[] | undefined) ?? []);

  it('shows the code line of every call, the route, timings and masking', () => {
    const all = captures.flatMap((c) => (c.sections.http as HttpRow[] | undefined) ?? []);
    assert.ok(all.length >= 10, `${all.length} rows`);
    for (const row of all) assert.match(row.origin?.file ?? 'null', /examples\/shop(\.test)?\.js$/, `${row.url}: origin`);
    const checkout = captures.find((c) => c.type === 'request' && c.name === 'GET /carts/17/checkout');
    assert.ok(checkout, captures.map((c) => c.name).join(', '));
    assert.equal((checkout.sections.request as { route?: string }).route, '/carts/:cart/checkout');
    const inventory = rows('request').find((row) => row.url.includes('/inventory/'));
    assert.equal(typeof inventory?.timing?.wait, 'number');
    const payment = rows('request').find((row) => row.url.endsWith('/payments'))!;
    assert.equal((payment.request_payload as Record<string, unknown>).password, '********');
    const mail = rows('job').find((row) => row.url.endsWith('/mail'))!;
    assert.equal(mail.request_headers.authorization, '********');
  });

  it('shows a pool, a failed call with its cause, a job and a test capture', () => {
    assert.equal(rows('request').filter((row) => row.url.includes('/inventory/') && row.pool !== null).length, 6);
    const failed = rows('request').find((row) => row.url.endsWith('/unreachable'));
    assert.equal(failed?.failed, true);
    assert.equal(failed?.exception?.previous?.[0]?.code, 'ECONNREFUSED', JSON.stringify(failed?.exception));
    assert.ok(captures.some((c) => c.type === 'job' && c.name === 'send-receipt' && rows('job').length > 0));
    const test = captures.find((c) => c.type === 'test');
    assert.equal(test?.name, 'rates > are quoted in EUR and GBP');
    assert.equal(test?.status, 'passed');
    assert.equal((test?.sections.http as HttpRow[] | undefined)?.length, 1);
  });
});

function readCaptures(dir: string): Capture[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => (JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { capture: Capture }).capture);
}
