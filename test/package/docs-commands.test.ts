import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../compat/install';
import { killGroup, startChild } from '../helpers/child';
import { packProbe } from '../helpers/pinned';

/**
 * Every shell command of the docs pages, as written, against the packed tarball installed in a fresh app: each one
 * the pages show is either run here (exit code asserted, and the output the page shows compared in shape) or named in
 * NOT_RUN with the reason. A page that gains a command fails here until it is run or listed.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs');

interface Block {
  page: string;
  lang: string;
  text: string;
}

function blocksOf(page: string): Block[] {
  const text = fs.readFileSync(path.join(DOCS, page), 'utf8');
  return [...text.matchAll(/```([a-z]*)\n([\s\S]*?)```/g)].map((match) => ({ page, lang: match[1]!, text: match[2]! }));
}

/**
 * The commands of the docs: every line of a `sh` block, and in a plain block the lines typed at a prompt (`$ `) or
 * that start with `probe ` (a synopsis). Comments after ` # ` are cut.
 */
function docCommands(): Array<{ page: string; command: string }> {
  const out: Array<{ page: string; command: string }> = [];
  for (const page of fs.readdirSync(DOCS).filter((name) => name.endsWith('.md'))) {
    for (const block of blocksOf(page)) {
      if (!['', 'sh', 'bash', 'shell', 'console'].includes(block.lang)) continue;
      for (const raw of block.text.split('\n')) {
        const prompt = raw.startsWith('$ ');
        if (block.lang === '' && !prompt && !raw.startsWith('probe ')) continue;
        const command = raw
          .replace(/^\$ /, '')
          .replace(/\s+#.*$/, '')
          .replace(/^#.*$/, '')
          .trim();
        if (command) out.push({ page, command });
      }
    }
  }
  return out;
}

/** Commands a test cannot run as written, and why (kept small: each needs something only a user's setup has). */
const NOT_RUN: Record<string, string> = {
  'PROBE_TOKEN=<the same> PROBE_COLLECT_ENDPOINT=http://probe-host:4319 BACKEND_OTLP_ENDPOINT=https://... otelcol --config otel-collector.yaml':
    'needs the OpenTelemetry Collector binary (not an npm package) and a tracing backend; otel-collector.yaml is parsed in test/collector',
  'NODE_OPTIONS="--require probe/register" npx next dev': "needs a Next.js app of one's own; the preload under next dev is run in test/next",
  'NODE_OPTIONS="--require probe/register" npx jest': "needs the user's Jest suite; the preload under a pinned Jest is run in test/testrunner/jest.test.ts",
  'NODE_OPTIONS="--require probe/register" npx vitest run':
    "needs the user's Vitest suite; the preload under a pinned Vitest is run in test/testrunner/vitest-preload.test.ts",
  'NODE_OPTIONS="--require probe/register" npx mocha': "needs the user's Mocha suite; the preload under a pinned Mocha is run in test/testrunner/mocha.test.ts",
  'NODE_OPTIONS="--require probe/register" npx ava': "needs the user's AVA suite; the preload under a pinned AVA 6 is run in test/testrunner/ava.test.ts",
  'NODE_OPTIONS="--require probe/register" npx tap':
    "needs the user's node-tap suite; the preload under a pinned tap 21 is run in test/testrunner/node-tap.test.ts",
  'probe run -- npm test':
    "needs the user's test suite; probe run over pinned node:test, Vitest, Jest and Mocha suites is run in test/snapshots/check-runners.test.ts",
  'probe check --update': 'needs a test run first; run after suites of every runner in test/snapshots/check-runners.test.ts',
  'probe run -- npm test && probe check --ci':
    "needs the user's test suite; probe check after suites of every runner (CI=1 included) is run in test/snapshots/check-runners.test.ts",
};

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function sh(command: string, cwd: string, timeout = 300_000): Promise<Ran> {
  return new Promise((resolve) => {
    // NODE_TEST_CONTEXT: this file runs under node --test; the docs' `node --test` is a top-level run.
    const env = {
      ...cleanEnv(),
      NODE_TEST_CONTEXT: undefined,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    const child = startChild('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => killGroup(child), timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** A page's line in a form that outlives one run: ids, ports, times and durations replaced by placeholders. */
function shape(line: string): string {
  return line
    .replace(/\b0m[\w-]{15}(?![\w-])/g, '<id>')
    .replace(/127\.0\.0\.1:\d+/g, '<host>')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, '<time>')
    .replace(/\d+(\.\d+)?( ?ms)\b/g, '<n>$2')
    .trimEnd();
}

/**
 * A diff's lines without the calls whose only change is their duration: how long a loopback call takes is the machine's
 * load, not the app's, so a busy machine can push one past the threshold; the summary's count follows.
 */
function withoutDurationOnlyChanges(lines: string[]): string[] {
  const kept = lines.filter((line) => !/^ {4}duration:/.test(line));
  const emptied = kept.filter((line, i) => line.startsWith('~ changed') && !/^ {4}/.test(kept[i + 1] ?? ''));
  return kept
    .filter((line) => !emptied.includes(line))
    .map((line) => line.replace(/(\d+) changed: /, (_, n: string) => `${Number(n) - emptied.length} changed: `));
}

/** The lines a page shows after `$ <command>` in its block, up to the next prompt or the block's end. */
function shownOutput(page: string, command: string): string[] {
  for (const block of blocksOf(page)) {
    const lines = block.text.split('\n');
    const at = lines.indexOf(`$ ${command}`);
    if (at < 0) continue;
    const end = lines.findIndex((line, i) => i > at && line.startsWith('$ '));
    return lines.slice(at + 1, end < 0 ? undefined : end).filter((line) => line.trim() !== '');
  }
  throw new Error(`${page} shows no output for ${command}`);
}

// The diff page's app: four calls, lines 3 to 6 (the upstream's port on stdout); the second run calls /coupons where the first called /legacy, and its
// upstream answers /stock with 503 and /price with a new total.
const UPSTREAM = `const http = require('node:http');
exports.start = (after) => new Promise((resolve) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/stock' && after) res.statusCode = 503;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.url === '/price' ? { total: after ? 12 : 10 } : { ok: true }));
  }).listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(server.address().port) || resolve({ base: 'http://127.0.0.1:' + server.address().port, close: () => server.close() }));
});
`;
const APP = `const { start } = require('./upstream');
start(process.env.STAGE === 'after').then(async ({ base, close }) => {
  await (await fetch(base + '/rates')).json();
  await (await fetch(base + (process.env.STAGE === 'after' ? '/coupons' : '/legacy'))).json();
  await (await fetch(base + '/stock')).json();
  await (await fetch(base + '/price', { method: 'POST', body: '{"items":1}' })).json();
  close();
});
`;

// The findings page's request: five items one by one (line 5), its config twice (6, 7), a 503 retried (8, 10), two
// independent reads one after the other (11, 12), against an upstream with real latency (each finding's cost clears
// the floor, and they are ordered by it).
// The findings are listed by cost, measured: the delays keep each finding's cost well apart from the next one's
// (N+1 ~320 ms, sequential ~250, duplicate ~70 over a floor of ~55, retry ~0) so that a loaded machine cannot swap
// their order or drop one under the floor.
const SERVER = `const http = require('node:http');
const delays = { '/config': 70, '/profile': 250, '/settings': 250 };
const up = http.createServer((req, res) => { if (req.url === '/flaky' && !up.flaked) { up.flaked = true; res.statusCode = 503; return res.end('{}'); } res.setHeader('content-type', 'application/json'); setTimeout(() => res.end(JSON.stringify({ url: req.url })), delays[req.url] ?? (req.url.startsWith('/items/') ? 80 : 0)); }).listen(0, '127.0.0.1');
const app = http.createServer(async (req, res) => { const base = 'http://127.0.0.1:' + up.address().port;
  for (const id of [1, 2, 3, 4, 5]) await (await fetch(base + '/items/' + id)).json();
  await (await fetch(base + '/config')).json();
  await (await fetch(base + '/config')).json();
  let flaky = await fetch(base + '/flaky'); await flaky.text();
  if (flaky.status === 503)
    flaky = await fetch(base + '/flaky'), await flaky.text();
  await (await fetch(base + '/profile')).json();
  await (await fetch(base + '/settings')).json();
  res.end('done'); });
app.listen(0, '127.0.0.1', async () => { console.log(await (await fetch('http://127.0.0.1:' + app.address().port + '/checkout')).text()); app.close(); up.close(); });
`;

const NODE_TEST = `const { test } = require('node:test');
const http = require('node:http');
test('quotes a rate', async () => {
  const server = http.createServer((req, res) => res.end('{"rate":1}')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  await (await fetch('http://127.0.0.1:' + server.address().port + '/rates')).json();
  server.close();
});
`;

test('every command of the docs pages, as written, against the packed tarball in a fresh app', { timeout: 900_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-docs-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const app = path.join(base, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'docs-app', version: '1.0.0', private: true }, null, 2) + '\n');
  for (const [file, text] of Object.entries({ 'upstream.js': UPSTREAM, 'app.js': APP, 'server.js': SERVER, 'test/rates.test.js': NODE_TEST })) {
    fs.mkdirSync(path.dirname(path.join(app, file)), { recursive: true });
    fs.writeFileSync(path.join(app, file), text);
  }
  const installed = await sh(`npm install --save-dev probe@file:${await packProbe()}`, app);
  assert.equal(installed.code, 0, installed.err);

  const ran = new Set<string>();
  /** Runs a docs command as the page writes it (`probe` through the app's own install) and checks its exit code. */
  const run = async (command: string, codes: number[], as = command): Promise<Ran> => {
    const result = await sh(as.replace(/^probe /, 'npx --no probe '), app);
    assert.ok(codes.includes(result.code ?? -1), `${command}: exit ${result.code}\n${result.out}${result.err}`);
    ran.add(command);
    return result;
  };
  const preload = (command: string) => `NODE_OPTIONS="--require probe/register" ${command}`;

  // docs/diff-and-findings.md: the diff of two runs of app.js, its output as the page shows it, exit 1.
  // The upstream on the same port in both runs, as one service would be: an endpoint is its host and path.
  const first = await sh(`STAGE=before ${preload('node app.js')}`, app);
  assert.equal(first.code, 0, first.err);
  assert.equal((await sh(`STAGE=after PORT=${first.out.trim()} ${preload('node app.js')}`, app)).code, 0);
  const diff = await run('probe diff --name app.js', [1]);
  assert.deepEqual(
    withoutDurationOnlyChanges(diff.out.split('\n').filter(Boolean)).map(shape),
    shownOutput('diff-and-findings.md', 'probe diff --name app.js')
      .filter((line) => !/^\$|^1$/.test(line))
      .map(shape),
    diff.out,
  );
  assert.equal((await run('echo $?', [0], 'npx --no probe diff --name app.js > /dev/null; echo $?')).out.trim(), '1');

  // Its findings: the request's capture, shown with --limit 3, as the page shows it.
  assert.equal((await sh(preload('node server.js'), app)).code, 0);
  const checkout = JSON.parse((await sh('npx --no probe list --type request --limit 500 --json', app)).out) as {
    captures: Array<{ id: string; name: string }>;
  };
  const id = checkout.captures.find((row) => row.name === 'GET /checkout')!.id;
  const showCommand = shownCommand('diff-and-findings.md', /^\$ (probe show \S+ --limit 3)$/);
  const show = await run(showCommand, [0], showCommand.replace(/0m[\w-]{15}/, id));
  assert.deepEqual(
    show.out.split('\n').filter(Boolean).slice(0, shownOutput('diff-and-findings.md', showCommand).length).map(shape),
    shownOutput('diff-and-findings.md', showCommand).map(shape),
    show.out,
  );

  // The synopses, with their placeholders filled: two captures of GET /checkout, a baseline named checkout.
  assert.equal((await sh(preload('node server.js'), app)).code, 0);
  const ids = (JSON.parse((await sh('npx --no probe list --type request --limit 500 --json', app)).out) as typeof checkout).captures
    .filter((row) => row.name === 'GET /checkout')
    .map((row) => row.id);
  const fill = (command: string) =>
    command
      .replace('<before-id>', ids[1]!)
      .replace('<after-id>', ids[0]!)
      .replace(/<id>|\[id\]/, ids[0]!)
      .replace(/<name>|\[name\]/, 'checkout')
      .replace('[--json]', '--json');
  for (const command of ['probe diff <before-id> <after-id>', "probe diff --name 'GET /checkout'"]) await run(command, [0, 1], fill(command));
  await run('probe baseline save <id> [name]', [0], fill('probe baseline save <id> [name]'));
  const baselines = await run('probe baseline list [--json]', [0], fill('probe baseline list [--json]'));
  assert.match(baselines.out, /checkout/);
  for (const command of ['probe diff --baseline checkout [id]', 'probe diff --baseline <name> [id]']) await run(command, [0, 1], fill(command));
  await run('probe baseline rm <name>', [0], fill('probe baseline rm <name>'));

  // docs/test-runners.md: node --test under the preload records the test.
  await run('NODE_OPTIONS="--require probe/register" node --test', [0]);
  assert.match((await sh('npx --no probe list', app)).out, /test\s+passed\s+.*quotes a rate/);

  // docs/collector.md: the collector starts and says where it listens (the token filled in, a free port for 4319).
  const collect = 'PROBE_TOKEN=<a long random string> npx --no probe collect --host 0.0.0.0 --port 4319';
  const collector = startChild(
    'bash',
    ['-c', `${collect.replace('<a long random string>', 'docs-test-token-0123456789abcdef').replace('--port 4319', '--port 0')}`],
    {
      cwd: app,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => killGroup(collector));
  let said = '';
  await new Promise<void>((resolve, reject) => {
    collector.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (/receiving OTLP\/HTTP traces/.test(said)) resolve();
    });
    collector.on('close', (code) => reject(new Error(`probe collect ended (${code}): ${said}`)));
  });
  ran.add(collect);

  const missing = docCommands().filter(({ command }) => !ran.has(command) && !(command in NOT_RUN));
  assert.deepEqual(missing, [], 'every docs command is run above or listed in NOT_RUN with its reason');
  const stale = Object.keys(NOT_RUN).filter((command) => !docCommands().some((each) => each.command === command));
  assert.deepEqual(stale, [], 'NOT_RUN lists only commands the docs still show');
});

function shownCommand(page: string, pattern: RegExp): string {
  for (const block of blocksOf(page)) for (const line of block.text.split('\n')) if (pattern.test(line)) return pattern.exec(line)![1]!;
  throw new Error(`${page}: no line matches ${pattern}`);
}
