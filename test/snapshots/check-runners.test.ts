import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { runChild, tail, type RunResult } from '../helpers/child';
import { cleanEnv, installRunnerApp } from '../testrunner/install';
import type { TestApp } from '../helpers/app';
import { connectMcp } from '../helpers/mcp';
import { launchBrowser, openPage, startDashboardCli } from '../dashboard/harness';

const SECRET = 'sk-live-0123456789abcdef';
const VERSIONS = { jest: '30.5.2', vitest: '4.1.12', mocha: '11.7.5' };

/** A loopback API answering JSON with values that change every call (a time, a UUID), as real ones do. */
async function startApi(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-request-id', randomUUID());
      res.end(JSON.stringify({ path: req.url?.split('?')[0], at: new Date().toISOString(), id: randomUUID(), echo: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A helper every suite calls through: the secret goes in a header, the query and the body. */
const CLIENT = `
exports.call = async function call(path, body) {
  const res = await fetch(process.env.API + path + '?token=${SECRET}', {
    method: body ? 'POST' : 'GET',
    headers: { authorization: 'Bearer ${SECRET}', 'content-type': 'application/json', 'x-trace': String(Date.now()) },
    body: body ? JSON.stringify({ ...body, password: '${SECRET}' }) : undefined,
  });
  return res.json();
};
`;

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'snapshot-project', private: true }),
  'test/client.cjs': CLIENT,
  'test/node/users.test.cjs': `const { describe, it } = require('node:test');
const { call } = require('../client.cjs');
describe('users', () => {
  it('creates a user', async () => {
    await call('/users', { name: 'Ada' }); // CREATE
  });
  it('reads user 42', async () => {
    await call('/users/42');
  });
});
`,
  'test/vitest/orders.test.mjs': `import { describe, it } from 'vitest';
import { createRequire } from 'node:module';
const { call } = createRequire(import.meta.url)('../client.cjs');
describe('orders', () => {
  it('places an order', async () => {
    await call('/orders', { sku: 'A-1', quantity: 1 }); // ORDER
  });
  it.each(['a', 'b'])('finds order %s', async (name) => {
    await call('/orders/' + name);
  });
  it.concurrent('lists carts', async () => {
    await call('/carts');
  });
  it.concurrent('lists coupons', async () => {
    await call('/coupons');
  });
  let tries = 0;
  it('is retried', { retry: 2 }, async () => {
    tries++;
    await call(tries === 1 ? '/flaky-first-attempt' : '/steady');
    if (tries === 1) throw new Error('first attempt fails');
  });
});
`,
  'test/jest/catalog.test.js': `const { call } = require('../client.cjs');
jest.retryTimes(2);
let attempts = 0;
describe('catalog', () => {
  test('lists products', async () => {
    await call('/products'); // PRODUCTS
  });
  test.each([[1], [2]])('reads category %i', async (n) => {
    await call('/categories/' + n);
  });
  test('is retried', async () => {
    attempts++;
    await call(attempts === 1 ? '/flaky-first-attempt' : '/steady');
    if (attempts === 1) throw new Error('first attempt fails');
  });
  test.concurrent('prices', async () => {
    await call('/prices');
  });
});
`,
  'test/mocha/stock.test.cjs': `const { call } = require('../client.cjs');
describe('stock', function () {
  it('counts stock', async function () {
    await call('/stock', { sku: 'A-1' });
  });
});
`,
  'run-all.cjs': `const { spawnSync } = require('node:child_process');
const path = require('node:path');
const bin = (p) => path.join(__dirname, '..', 'node_modules', p);
// The files by name: node --test takes a folder on Node 20 only (Node 22 and later read it as a file or a glob).
const nodeTests = require('node:fs').readdirSync(path.join(__dirname, 'test', 'node')).filter((f) => f.endsWith('.test.cjs')).sort();
const steps = [
  [process.execPath, ['--test', ...nodeTests.map((f) => 'test/node/' + f)]],
  [process.execPath, [bin('vitest/vitest.mjs'), 'run', 'test/vitest']],
  [process.execPath, [bin('jest/bin/jest.js'), 'test/jest']],
  [process.execPath, [bin('mocha/bin/mocha.js'), 'test/mocha/*.test.cjs']],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
`,
};

/** The line of `marker` in a project file (1-based): the oracle of a call's code line. */
function lineOf(project: string, file: string, marker: string): string {
  const lines = readFileSync(path.join(project, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(marker));
  assert.ok(index >= 0, `${marker} in ${file}`);
  return `${file}:${index + 1}`;
}

/** Every snapshot file under the project, by path, with its text. */
function snapshotFiles(project: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(project, dir), { withFileTypes: true })) {
      const child = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.probe') walk(child);
      else if (entry.isFile() && dir.endsWith('__probe__')) out.set(child, readFileSync(path.join(project, child), 'utf8'));
    }
  };
  walk('');
  return out;
}

/**
 * The dashboard (real Chromium) and the MCP tool probe-show tell a test capture's snapshot status as probe check
 * does (the oracle): a test that differs (with its diff), one that matches, one that is new.
 */
async function checkViews(project: string, env: NodeJS.ProcessEnv): Promise<void> {
  const app = { dir: project, env: () => ({ ...env, NODE_OPTIONS: '' }) } as unknown as TestApp;
  const checked = await runChild(process.execPath, [path.join(__dirname, '..', '..', 'dist', 'cli', 'main.js'), 'check', '--json'], { cwd: project, env });
  const verdicts = (JSON.parse(checked.stdout) as { tests: Array<{ name: string; verdict: string; capture_id: string | null }> }).tests;
  const pick = (verdict: string) => verdicts.find((test) => test.verdict === verdict && test.capture_id)!;
  const chosen = [pick('differs'), pick('matches'), pick('new')];
  assert.ok(chosen.every(Boolean), checked.stdout);

  const mcp = await connectMcp(app);
  for (const test of chosen) {
    const shown = await mcp.call('probe-show', { id: test.capture_id });
    assert.equal(shown.json.snapshot?.status, test.verdict, `probe-show of ${test.name}: ${shown.text.slice(0, 400)}`);
    if (test.verdict === 'differs') assert.ok(shown.json.snapshot.diff.added.length + shown.json.snapshot.diff.changed.length > 0);
  }
  await mcp.close();

  const cli = await startDashboardCli(app);
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openPage(browser);
    for (const test of chosen) {
      await page.goto(`${cli.url}#/captures/${encodeURIComponent(test.capture_id!)}`);
      const badge = page.locator('[data-testid=snapshot-status]');
      await badge.waitFor({ timeout: 60_000 });
      assert.equal(await badge.getAttribute('data-status'), test.verdict, test.name);
      assert.equal(await page.locator('[data-testid=snapshot] [data-testid=diff]').count(), test.verdict === 'differs' ? 1 : 0);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await cli.stop();
  }
}

describe('probe check through node:test, Vitest, Jest and Mocha', { timeout: 900_000 }, () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let app: string;
  let project: string;
  before(async () => {
    api = await startApi();
    app = await installRunnerApp('snapshots', VERSIONS);
    project = path.join(app, 'project');
  });
  after(() => api.close());

  const env = (): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...cleanEnv(), API: api.url, NO_COLOR: '1' };
    delete base.NODE_TEST_CONTEXT;
    delete base.CI;
    return base;
  };
  const probeCli = () => path.join(app, 'node_modules', 'probe', 'dist', 'cli', 'main.js');
  const probe = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runChild(process.execPath, [probeCli(), ...args], { cwd: project, env: { ...env(), ...extra } });
  const runSuites = async () => {
    const result = await probe(['run', '--no-dashboard', '--', process.execPath, 'run-all.cjs']);
    assert.equal(result.code, 0, `the suites pass under probe run:\n${tail(result.stdout)}\n${tail(result.stderr)}`);
  };
  const show = (result: RunResult) => `exit ${result.code}\n${result.stdout}\n${result.stderr}`;

  it('writes snapshots, matches an unchanged run byte for byte, names exactly the changed tests with their lines, and fails on a public host even with --update', async () => {
    rmSync(project, { recursive: true, force: true });
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), text);
    }

    // 1. First run, then --update writes one file per test file, beside it.
    await runSuites();
    const update = await probe(['check', '--update']);
    assert.equal(update.code, 0, show(update));
    assert.match(update.stdout, /the last test run: probe run /);
    const written = snapshotFiles(project);
    assert.deepEqual([...written.keys()].sort(), [
      'test/jest/__probe__/catalog.test.js.json',
      'test/mocha/__probe__/stock.test.cjs.json',
      'test/node/__probe__/users.test.cjs.json',
      'test/vitest/__probe__/orders.test.mjs.json',
    ]);
    const tests = (file: string) => Object.keys(JSON.parse(written.get(file)!).tests);
    assert.deepEqual(tests('test/node/__probe__/users.test.cjs.json'), ['users > creates a user', 'users > reads user 42']);
    assert.deepEqual(tests('test/vitest/__probe__/orders.test.mjs.json'), [
      'orders > finds order a',
      'orders > finds order b',
      'orders > is retried',
      'orders > lists carts',
      'orders > lists coupons',
      'orders > places an order',
    ]);
    assert.deepEqual(tests('test/jest/__probe__/catalog.test.js.json'), [
      'catalog > is retried',
      'catalog > lists products',
      'catalog > prices',
      'catalog > reads category 1',
      'catalog > reads category 2',
    ]);
    assert.deepEqual(tests('test/mocha/__probe__/stock.test.cjs.json'), ['stock > counts stock']);
    const catalog = JSON.parse(written.get('test/jest/__probe__/catalog.test.js.json')!).tests;
    assert.deepEqual(
      catalog['catalog > is retried'].calls.map((call: { url: string }) => call.url),
      ['http://127.0.0.1:{port}/steady?token=********'],
      'a retried test keeps its last attempt',
    );
    assert.deepEqual(
      JSON.parse(written.get('test/vitest/__probe__/orders.test.mjs.json')!).tests['orders > is retried'].calls.map((call: { url: string }) => call.url),
      ['http://127.0.0.1:{port}/steady?token=********'],
      'a test Vitest retried keeps its last attempt',
    );
    for (const [file, text] of written) {
      assert.ok(!text.includes(SECRET), `no secret in ${file}`);
      assert.ok(!text.includes(api.url), `no loopback port in ${file}`);
    }

    // 2. The same suite again: every test matches; snapshots made from this run are the same bytes.
    await runSuites();
    const same = await probe(['check']);
    assert.equal(same.code, 0, show(same));
    assert.match(same.stdout, /14 tests: 14 match, 0 differ, 0 new, 0 obsolete/);
    for (const file of written.keys()) rmSync(path.join(project, path.dirname(file)), { recursive: true, force: true });
    const again = await probe(['check', '--update']);
    assert.equal(again.code, 0, show(again));
    assert.deepEqual(snapshotFiles(project), written, 'snapshot files are identical byte for byte across two runs');

    // 3. One test calls a new endpoint, one sends another body field value, one is removed.
    const edit = (file: string, from: string, to: string) => {
      const full = path.join(project, file);
      const text = readFileSync(full, 'utf8');
      assert.ok(text.includes(from));
      writeFileSync(full, text.replace(from, to));
    };
    const productsLines = JSON.parse(written.get('test/jest/__probe__/catalog.test.js.json')!).tests['catalog > lists products'].calls.map(
      (call: { line: string }) => call.line,
    );
    edit('test/node/users.test.cjs', '// CREATE\n', "// CREATE\n    await call('/audit'); // AUDIT\n");
    edit('test/vitest/orders.test.mjs', 'quantity: 1', 'quantity: 2');
    edit('test/jest/catalog.test.js', "  test('lists products', async () => {\n    await call('/products'); // PRODUCTS\n  });\n", '');
    await runSuites();
    const changed = await probe(['check', '--json']);
    assert.equal(changed.code, 1, show(changed));
    const result = JSON.parse(changed.stdout) as {
      tests: Array<{
        name: string;
        verdict: string;
        diff?: { added: Array<{ url: string; line: string }>; removed: Array<{ line: string }>; changed: Array<{ line: string; request_payload?: unknown[] }> };
      }>;
    };
    const differing = result.tests.filter((test) => test.verdict !== 'matches');
    assert.deepEqual(differing.map((test) => `${test.verdict} ${test.name}`).sort(), [
      'differs orders > places an order',
      'differs users > creates a user',
      'obsolete catalog > lists products',
    ]);
    const byName = Object.fromEntries(differing.map((test) => [test.name, test.diff!]));
    assert.deepEqual(
      byName['users > creates a user']!.added.map((call) => [call.url, call.line]),
      [['http://127.0.0.1:{port}/audit?token=********', lineOf(project, 'test/node/users.test.cjs', '// AUDIT')]],
    );
    assert.deepEqual(
      byName['orders > places an order']!.changed.map((change) => [change.line, change.request_payload]),
      [[lineOf(project, 'test/vitest/orders.test.mjs', '// ORDER'), [{ path: '$.quantity', before: 1, after: 2 }]]],
    );
    assert.deepEqual(
      byName['catalog > lists products']!.removed.map((call) => call.line),
      productsLines,
    );
    assert.deepEqual(productsLines, ['test/jest/catalog.test.js:6'], "an obsolete test's calls keep the lines they were made at");
    const text = await probe(['check']);
    assert.equal(text.code, 1);
    for (const name of ['users > creates a user', 'orders > places an order', 'catalog > lists products'])
      assert.ok(text.stdout.includes(JSON.stringify(name)), `${name} in:\n${text.stdout}`);
    assert.match(
      text.stdout,
      new RegExp(
        `\\+ added +GET http://127\\.0\\.0\\.1:\\{port\\}/audit\\?token=\\*+ +200 +${lineOf(project, 'test/node/users.test.cjs', '// AUDIT').replace(/[.]/g, '\\.')}`,
      ),
    );
    assert.match(text.stdout, /request \$\.quantity: 1 → 2/);
    // --ci: a new test fails; --update takes every change.
    edit(
      'test/mocha/stock.test.cjs',
      "  it('counts stock'",
      "  it('reserves stock', async function () {\n    await call('/reservations');\n  });\n  it('counts stock'",
    );
    await runSuites();
    const ci = await probe(['check'], { CI: '1' });
    assert.equal(ci.code, 1, show(ci));
    assert.match(ci.stdout, /\+ new "stock > reserves stock"/);
    await checkViews(project, env());
    const accepted = await probe(['check', '--update']);
    assert.equal(accepted.code, 0, show(accepted));
    assert.equal((await probe(['check'], { CI: '1' })).code, 0);

    // 4. A test calling a public host: exit 1 even with --update, naming the test, the URL and the line; never
    // written. Run preloaded without probe run: the last run is then the process group.
    writeFileSync(
      path.join(project, 'test/node/payments.test.cjs'),
      `const { it } = require('node:test');
it('charges a card', async () => {
  await fetch('http://203.0.113.10/v1/charges', { signal: AbortSignal.timeout(300) }).catch(() => {}); // PUBLIC
});
`,
    );
    const register = path.join(app, 'node_modules', 'probe', 'dist', 'register.js');
    const preloaded = await runChild(process.execPath, ['--test', 'test/node/payments.test.cjs'], {
      cwd: project,
      env: { ...env(), NODE_OPTIONS: `--require ${register}` },
    });
    assert.equal(preloaded.code, 0, show(preloaded));
    const outside = await probe(['check', '--update']);
    assert.equal(outside.code, 1, show(outside));
    assert.match(outside.stdout, /the last test run: process group /);
    assert.ok(
      outside.stdout.includes(
        `"charges a card" calls a host outside snapshots.hosts: http://203.0.113.10/v1/charges  ${lineOf(project, 'test/node/payments.test.cjs', '// PUBLIC')}`,
      ),
      outside.stdout,
    );
    assert.equal(existsSync(path.join(project, 'test/node/__probe__/payments.test.cjs.json')), false, 'a call to another host is never written');
    // The project allows the host: the same run then passes and is written.
    writeFileSync(path.join(project, 'probe.config.json'), JSON.stringify({ snapshots: { hosts: ['loopback', 'private', '203.0.113.10'] } }));
    const allowed = await probe(['check', '--update']);
    assert.equal(allowed.code, 0, show(allowed));
    assert.ok(existsSync(path.join(project, 'test/node/__probe__/payments.test.cjs.json')));

    // --since: every test capture started within it, whatever run wrote it; bad input is exit 2.
    const since = await probe(['check', '--since', '1d']);
    assert.match(since.stdout, /^test captures of the last 1d started /, show(since));
    assert.equal((await probe(['check', '--since', 'soon'])).code, 2);
    assert.equal((await probe(['check', '--update', '--ci'])).code, 2);
  });
});
