import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { startChild, waitForLine } from '../helpers/child';
import type { HttpRow } from '../../src/capture/types';
import { curlOf } from '../../src/dashboard/ui/curl';
import { fetchOf } from '../../src/dashboard/ui/fetchSnippet';

// Code Probe writes (mock modules, JSON a test loads, HAR, copy as curl / fetch) is made from recorded text: a
// job's name, URLs, headers and bodies an app sent or received. Each text below tries to leave its literal or
// comment and run: it sets globalThis.__probePwned, or writes a file named pwned. Exported, then imported,
// loaded or pasted, nothing may run, and every value must come back as it was.

const ESCAPES = [
  '\nglobalThis.__probePwned = 1; //',
  '*/ globalThis.__probePwned = 2; /*',
  '\u2028globalThis.__probePwned = 3; //',
  '\u2029globalThis.__probePwned = 4; //',
  '`${globalThis.__probePwned = 5}`',
  '"); globalThis.__probePwned = 6; ("',
  "'); globalThis.__probePwned = 7; ('",
  '</script><script>globalThis.__probePwned = 8</script>',
  '$(touch pwned) `touch pwned` ; touch pwned',
  '\u202egnp.exe\u200e\u200f\u061c',
].join(' ');
const JOB_NAME = `sync ${ESCAPES}`;
/** What a header can carry (Node refuses control characters and non-Latin-1 in header values). */
const HEADER_TEXT = '*/ globalThis.__probePwned = 9; /* `${globalThis.__probePwned = 10}` </script> "q" \'q\' $(touch pwned)';

const APP = `
const { job } = require('probe');
const base = process.env.BASE;
const hostile = ${JSON.stringify(ESCAPES)};
const calls = [
  ['/a*/b\`c\`/\${x}/</script>/$(touch pwned)?q=*/&r=' + encodeURIComponent(hostile), {}],
  ['/items', { method: 'POST', headers: { 'content-type': 'application/json', 'x-note': ${JSON.stringify(HEADER_TEXT)} }, body: JSON.stringify({ note: hostile }) }],
  ['/text', { headers: { 'x-note': ${JSON.stringify(HEADER_TEXT)} } }],
];
job(${JSON.stringify(JOB_NAME)}, async () => {
  const out = [];
  for (const [path, init] of calls) {
    const res = await fetch(base + path, init);
    out.push({ status: res.status, body: await res.text() });
  }
  console.log(JSON.stringify(out));
});
`;

/** Loads each export as a project would, then replays the calls through MSW; prints what ran and what came back. */
const LOAD = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const nock = require('nock');
const { SnapshotAgent } = require('undici');
const { handlers } = await import('./handlers.mjs');
nock.define(JSON.parse(readFileSync('nock.json', 'utf8')));
nock.cleanAll();
const agent = new SnapshotAgent({ mode: 'playback', snapshotPath: 'snapshots.json' });
await agent.loadSnapshots();
JSON.parse(readFileSync('calls.har', 'utf8'));
const { setupServer } = await import('msw/node');
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: 'error' });
const urls = JSON.parse(process.env.URLS);
const out = [];
for (const [url, init] of urls) {
  const res = await fetch(url, init);
  out.push({ status: res.status, body: await res.text() });
}
server.close();
console.log(JSON.stringify({ pwned: globalThis.__probePwned ?? null, out }));
`;

function startUpstream(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/text')) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-note': HEADER_TEXT });
        return res.end(`line one\n${ESCAPES}\nline three`);
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'x-note': HEADER_TEXT });
      res.end(JSON.stringify({ echo: ESCAPES, [ESCAPES]: 1 }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

describe('exports of hostile recorded text: imported, loaded or pasted, nothing runs', { timeout: 180_000 }, () => {
  const app = new TestApp({ 'app.cjs': APP, 'load.mjs': LOAD, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }) });
  let recorded: Array<{ status: number; body: string }>;
  let rows: HttpRow[];
  let base: string;
  let close: () => Promise<void>;
  before(async () => {
    ({ base, close } = await startUpstream());
    const run = await app.run('app.cjs', { env: { BASE: base } });
    assert.equal(run.code, 0, run.stderr);
    recorded = JSON.parse(run.stdout);
    const capture = app.captures().find((one) => one.name === JOB_NAME);
    assert.ok(capture, 'the job is recorded under its name as given');
    rows = capture.sections.http as HttpRow[];
    assert.equal(rows.length, 3);
  });
  after(() => close());

  test('MSW, nock, undici snapshot and HAR files: loaded by the real libraries, nothing runs, every answer comes back', async () => {
    for (const [flag, file] of [
      ['--msw', 'handlers.mjs'],
      ['--nock', 'nock.json'],
      ['--undici-snapshot', 'snapshots.json'],
      ['--har', 'calls.har'],
    ] as const) {
      const exported = await app.cli(['export', flag, '--out', file]);
      assert.equal(exported.code, 0, exported.stderr);
    }
    const msw = readFileSync(path.join(app.dir, 'handlers.mjs'), 'utf8');
    for (const line of msw.split('\n')) {
      // Comments hold Probe's own words only: no recorded text at all.
      if (line.trimStart().startsWith('//'))
        assert.ok(!line.includes('sync') && !line.includes('127.0.0.1'), `a comment holds recorded text: ${line.slice(0, 200)}`);
    }
    for (const file of ['handlers.mjs', 'nock.json', 'snapshots.json', 'calls.har']) {
      assert.doesNotMatch(
        readFileSync(path.join(app.dir, file), 'utf8'),
        /[\u2028\u2029\u200e\u200f\u061c\u202e]/,
        `${file} carries no raw separators or bidi controls`,
      );
    }
    const urls = rows.map((row) => [row.url, { method: row.method, headers: { 'content-type': row.request_headers['content-type'] ?? 'text/plain' } }]);
    const loaded = await app.run('load.mjs', { preload: 'none', env: { URLS: JSON.stringify(urls) } });
    assert.equal(loaded.code, 0, loaded.stderr);
    const result = JSON.parse(loaded.stdout) as { pwned: unknown; out: typeof recorded };
    assert.equal(result.pwned, null, 'no recorded text ran as code');
    assert.deepEqual(result.out, recorded, 'MSW answers with the recorded statuses and bodies, byte for byte');
    assert.equal(existsSync(path.join(app.dir, 'pwned')), false);
  });

  test('the dashboard downloads the same MSW module and nock file the CLI writes', async () => {
    const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'dashboard', '--port', '0'], {
      cwd: app.dir,
      env: app.env({ preload: 'none' }),
    });
    try {
      const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+\/)/);
      const id = app.captures().find((one) => one.name === JOB_NAME)!.id;
      for (const [format, flag] of [
        ['msw', '--msw'],
        ['nock', '--nock'],
      ] as const) {
        const response = await fetch(`${url}api/captures/${id}/mocks/${format}`);
        assert.equal(response.status, 200);
        const cli = await app.cli(['export', id, flag, '--out', `download.${format}`]);
        assert.equal(cli.code, 0, cli.stderr);
        assert.ok((await response.text()) === readFileSync(path.join(app.dir, `download.${format}`), 'utf8'), `${format}: the same file`);
      }
    } finally {
      child.kill();
    }
  });

  test('copy as fetch: evaluated, it calls fetch with the recorded values and runs nothing else', () => {
    for (const row of rows) {
      const snippet = fetchOf(row);
      const seen: unknown[] = [];
      const scope = globalThis as { __probePwned?: unknown };
      delete scope.__probePwned;
      new Function('fetch', snippet)((...args: unknown[]) => seen.push(args));
      assert.equal(scope.__probePwned, undefined, snippet);
      assert.equal(seen.length, 1);
      const [url, init] = seen[0] as [string, { method: string; headers?: Record<string, string> }];
      assert.equal(url, row.url);
      assert.equal(init.method, row.method);
      if (row.request_headers['x-note']) assert.equal(init.headers?.['x-note'], row.request_headers['x-note']);
      assert.doesNotMatch(snippet, /[\u2028\u2029\u200e\u200f\u061c\u202e]/);
    }
  });

  test('copy as curl: bash reads each command as curl with the recorded words, runs nothing else', () => {
    const bin = path.join(app.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    app.write('bin/curl', `#!${process.execPath}\nprocess.stdout.write(JSON.stringify(process.argv.slice(2)) + '\\n');\n`);
    chmodSync(path.join(bin, 'curl'), 0o755);
    const work = path.join(app.dir, 'paste');
    mkdirSync(work, { recursive: true });
    for (const row of rows) {
      const command = curlOf(row);
      assert.doesNotMatch(command, /[\u2028\u2029\u200e\u200f\u061c\u202e]/, 'no raw bidi control or separator in the copied text');
      assert.equal(spawnSync('bash', ['-n', '-c', command]).status, 0, command);
      const run = spawnSync('bash', ['-c', command], { cwd: work, env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const argv = JSON.parse(run.stdout) as string[];
      assert.ok(argv.includes(row.url), `${row.url} is one word`);
      assert.deepEqual(readdirSync(work), [], 'nothing ran');
    }
  });
});
