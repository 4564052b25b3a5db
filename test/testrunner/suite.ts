import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Capture } from '../../src/capture/types';

/** The loopback server the fixture suites call: `/fail` answers 500, every other path 200. */
export async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Every capture in an app's default file store. */
export function readCaptures(dir: string): Capture[] {
  const folder = path.join(dir, '.probe', 'captures');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => /^\d{17}-[0-9A-Za-z_-]+\.json$/.test(name))
    .map((name) => (JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as { capture: Capture }).capture)
    .filter(Boolean);
}

const paths = (capture: Capture) => (capture.sections.http ?? []).map((row) => new URL(row.url).pathname + new URL(row.url).search).sort();

/** The tests of the fixture suites (vitest.suite.test.js, node-test.suite.test.*), each with the calls it made. */
export const EXPECTED_TESTS: Record<string, { status: string; calls: string[] }> = {
  'top passes': { status: 'passed', calls: ['/ok?test=top'] },
  'suite > inner > fails on a 500': { status: 'failed', calls: ['/after-each', '/before-each', '/fail'] },
  'suite > passes': { status: 'passed', calls: ['/after-each', '/before-each', '/ok?test=passes'] },
  'suite > fails with no failed call': { status: 'failed', calls: ['/after-each', '/before-each'] },
};

/**
 * One capture of type `test` per test case, named by its full title, with its status and exactly its calls and
 * its hooks'; the file's `beforeAll` call in a command capture, never in a test's.
 */
export function checkTestCaptures(captures: Capture[], output: string, options: { outside?: boolean } = {}): void {
  const tests = captures.filter((capture) => capture.type === 'test');
  const seen = Object.fromEntries(tests.map((capture) => [capture.name, { status: capture.status, calls: paths(capture) }]));
  assert.deepEqual(seen, EXPECTED_TESTS, `test captures\n${output}`);
  assert.equal(tests.length, Object.keys(EXPECTED_TESTS).length, 'one capture per test');
  const holders = captures.filter((capture) => paths(capture).includes('/before-all'));
  const expected = options.outside === false ? [] : [['command', ['/before-all']]];
  assert.deepEqual(
    holders.map((capture) => [capture.type, paths(capture)]),
    expected,
    "the beforeAll call is in the file's command capture only",
  );
  assert.ok(
    !captures.some((capture) => capture.type === 'command' && paths(capture).length === 0),
    `no empty command capture: ${captures.map((c) => `${c.type} ${c.name}`).join(', ')}`,
  );
}

/** What `probe list --json --type test --has-errors` and the MCP probe-list answer: the two failed tests. */
export function checkFailedList(json: { captures: Array<{ type: string; name: string; status: string; has_errors: boolean }> }): void {
  const names = json.captures.map((row) => `${row.type} ${row.status} ${row.name}`).sort();
  assert.deepEqual(names, ['test failed suite > fails with no failed call', 'test failed suite > inner > fails on a 500']);
}
