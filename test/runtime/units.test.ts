import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp, waitForLine, eventually, collect } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import type { Capture } from '../../src/capture/types';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

const SERVER = `
const http = require('node:http');
const { pool, job, label, tag } = require('probe');
const UP = process.env.UP;
const server = http.createServer(async (req, res) => {
  if (req.url.startsWith('/health')) return res.end('ok');
  label('checkout for ada');
  tag('checkout', 'beta');
  const a = await fetch(UP + '/json?token=abc&page=2', { headers: { authorization: 'Bearer sekret', 'x-trace': 'keep' } });
  await a.json();
  await pool(() => Promise.all([
    fetch(UP + '/status/500').then((r) => r.text()),
    fetch(UP + '/text').then((r) => r.text()),
  ]));
  await job('send-receipt', async () => { await fetch(UP + '/json').then((r) => r.text()); }, { id: 'job-42' });
  res.writeHead(201, { 'content-type': 'text/plain' });
  res.end('done');
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
fetch(UP + '/text').then((r) => r.text()); // boot-time call: the process's command capture
`;

test('a web request, its job and the boot call become linked captures', async () => {
  const app = new TestApp({ 'server.js': SERVER });
  const child = app.spawn('server.js', { env: { UP: upstream.url } });
  try {
    const [, port] = await waitForLine(child, /listening (\d+)/);
    const res = await fetch(`http://127.0.0.1:${port}/checkout/17?coupon=x&password=p`, { headers: { cookie: 'sid=1', 'x-app': 'y' } });
    assert.equal(res.status, 201);
    assert.equal(await res.text(), 'done');
    await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.text());
    const request = await eventually(() => app.captures().find((c) => c.type === 'request' && c.name === 'GET /checkout/17'));
    const jobCapture = await eventually(() => app.captures().find((c) => c.type === 'job'));

    assert.equal(request.schema_version, 1);
    assert.match(request.id, /^[0-9A-Za-z_-]{8,64}$/);
    assert.equal(request.status, '201');
    assert.equal(request.label, 'checkout for ada');
    assert.deepEqual(request.tags, ['checkout', 'beta']);
    assert.equal(request.parent_id, null);
    assert.equal(request.ended_by, 'response');
    assert.match(request.trace_id, /^[0-9a-f]{32}$/);
    assert.equal(request.meta.pid, child.pid);
    assert.equal(request.meta.service, 'test-app');
    assert.ok(request.ended_at >= request.started_at);
    const section = request.sections.request!;
    assert.equal(section.method, 'GET');
    assert.equal(section.path, '/checkout/17');
    assert.equal(section.status, '201');
    assert.equal(section.url, `http://127.0.0.1:${port}/checkout/17?coupon=x&password=********`);
    assert.equal(section.headers.cookie, '********');
    assert.equal(section.headers['x-app'], 'y');
    assert.equal(section.remote_address, '127.0.0.1');

    const rows = request.sections.http!;
    assert.equal(rows.length, 3, 'the job call belongs to the job, not the request');
    const [first, failed, text] = rows;
    assert.equal(first!.url, `${upstream.url}/json?token=********&page=2`);
    assert.equal(first!.request_headers.authorization, '********');
    assert.equal(first!.request_headers['x-trace'], 'keep');
    assert.equal(first!.response_headers['set-cookie'], '********');
    assert.equal(first!.pool, null);
    assert.equal(failed!.status, 500);
    assert.equal(failed!.failed, true);
    assert.equal(failed!.pool, 1);
    assert.equal(text!.pool, 1);
    assert.equal(first!.origin!.file, 'server.js');
    assert.equal(first!.origin!.line, 9);

    assert.deepEqual(request.summary.errors, [`HTTP call failed: GET ${upstream.url}/status/500 (500)`]);
    assert.equal(request.summary.totals!.http_calls, 3);
    assert.equal(request.summary.totals!.http_failed, 1);
    assert.deepEqual(request.summary.totals!.http_by_host, { [new URL(upstream.url).host]: 3 });
    assert.deepEqual(request.summary.warnings, []);

    const poolSpan = request.spans.find((s) => s.kind === 'pool');
    assert.ok(poolSpan, 'a pool span');
    const httpSpans = request.spans.filter((s) => s.kind === 'http');
    assert.equal(httpSpans.length, 3);
    assert.deepEqual(httpSpans.map((s) => s.meta.row).sort(), [0, 1, 2]);
    for (const s of httpSpans.filter((s) => rows[s.meta.row as number]!.pool === 1)) assert.equal(s.meta.parent_id, poolSpan!.id);
    const root = request.spans.find((s) => s.meta.root);
    assert.equal(httpSpans.find((s) => s.meta.row === 0)!.meta.parent_id, root!.id);

    assert.equal(jobCapture.name, 'send-receipt');
    assert.equal(jobCapture.status, 'done');
    assert.equal(jobCapture.job_id, 'job-42');
    assert.equal(jobCapture.parent_id, request.id);
    assert.equal(jobCapture.sections.http!.length, 1);

    await eventually(() => app.captures().filter((c) => c.name === 'GET /health').length === 1); // recorded without except
  } finally {
    child.kill('SIGTERM');
    await collect(child).catch(() => undefined);
  }
  // SIGTERM with no app handler: the boot call's command capture is kept on the way out.
  const command = app.captures().find((c) => c.type === 'command');
  assert.ok(command, 'command capture written at SIGTERM');
  assert.equal(command.name, 'server.js');
  assert.equal(command.status, String(128 + 15));
  assert.equal(command.sections.http!.length, 1);
});

test('except keeps whole captures out, with their calls', async () => {
  const app = new TestApp({
    'server.js': SERVER,
    'probe.config.mjs': `export default { except: ['GET /health*', /^GET \\/checkout/] };`,
  });
  const child = app.spawn('server.js', { env: { UP: upstream.url } });
  try {
    const [, port] = await waitForLine(child, /listening (\d+)/);
    await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.text());
    await fetch(`http://127.0.0.1:${port}/checkout/1`).then((r) => r.text());
    // A later request that is kept: once it is stored, the two before it have ended and been judged.
    await fetch(`http://127.0.0.1:${port}/orders/1`).then((r) => r.text());
    await eventually(() => app.captures().some((c) => c.type === 'request' && c.name.startsWith('GET /orders')));
    const names = app.captures().map((c) => c.name);
    assert.ok(!names.some((n) => n.startsWith('GET /health')), names.join());
    assert.ok(!names.some((n) => n.startsWith('GET /checkout')), names.join());
  } finally {
    child.kill('SIGINT');
    await collect(child).catch(() => undefined);
  }
});

function script(body: string): string {
  return `const UP = process.env.UP;\n${body}`;
}

test('a script is one command capture named as typed, with its exit code', async () => {
  const app = new TestApp({ 'scripts/sync.js': script(`fetch(UP + '/json').then((r) => r.json()).then(() => { process.exitCode = 3; });`) });
  const run = await app.run('scripts/sync.js', { env: { UP: upstream.url }, args: ['--all', 'x'] });
  assert.equal(run.code, 3);
  assert.equal(run.stderr, '');
  const [capture] = app.captures();
  assert.equal(capture!.type, 'command');
  assert.equal(capture!.name, 'scripts/sync.js --all x');
  assert.equal(capture!.status, '3');
  assert.equal(capture!.ended_by, 'exit');
  assert.equal(capture!.sections.http![0]!.status, 200);
  assert.equal(capture!.sections.http![0]!.origin!.file, 'scripts/sync.js');
});

for (const [how, body, code] of [
  ['process.exit()', `fetch(UP + '/json').then((r) => r.text()).then(() => process.exit(5));`, 5],
  ['an uncaught exception', `fetch(UP + '/json').then((r) => r.text()).then(() => { setTimeout(() => { throw new Error('boom'); }); });`, 1],
  ['a call still in flight at exit', `fetch(UP + '/hang').then((r) => { r.text(); setImmediate(() => process.exit(0)); });`, 0],
] as const) {
  test(`nothing is lost on ${how}`, async () => {
    const app = new TestApp({ 'run.js': script(body) });
    const run = await app.run('run.js', { env: { UP: upstream.url } });
    assert.equal(run.code, code, run.stderr);
    const captures = app.captures();
    assert.equal(captures.length, 1, run.stderr);
    const rows = captures[0]!.sections.http!;
    assert.equal(rows.length, 1);
    assert.equal(captures[0]!.status, String(code));
    if (how.startsWith('a call still')) {
      assert.equal(rows[0]!.status, 200, 'the row keeps what was seen');
      assert.ok(rows[0]!.duration! > 0);
    }
  });
}

test('process.exit() with a driver that only writes asynchronously: the last capture goes through the exit writer process', async () => {
  const driver = `const fs = require('node:fs');
const path = require('node:path');
module.exports = {
  storage: { driver: 'async-folder' },
  register(probe) {
    probe.extendStore('async-folder', (app) => {
      const dir = path.join(app.root, 'async-out');
      return {
        async put(capture) {
          await fs.promises.mkdir(dir, { recursive: true });
          await fs.promises.writeFile(path.join(dir, capture.id + '.json'), JSON.stringify(capture));
        },
        async find() { return null; },
        async index() { return []; },
        async clear() {},
      };
    });
  },
};
`;
  const app = new TestApp({ 'probe.config.cjs': driver, 'run.js': script(`fetch(UP + '/json').then((r) => r.text()).then(() => process.exit(4));`) });
  const run = await app.run('run.js', { env: { UP: upstream.url } });
  assert.equal(run.code, 4, run.stderr);
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = `${app.dir}/async-out`;
  const files = readdirSync(dir);
  assert.equal(files.length, 1, run.stderr);
  const capture = JSON.parse(readFileSync(`${dir}/${files[0]}`, 'utf8')) as Capture;
  assert.equal(capture.status, '4');
  assert.equal(capture.sections.http!.length, 1);
});

test('SIGINT with an app handler leaves the decision to the app', async () => {
  const app = new TestApp({
    'run.js': script(`process.on('SIGINT', () => { console.log('app handled'); process.exit(7); });
fetch(UP + '/json').then((r) => r.text()).then(() => console.log('ready'));
setInterval(() => {}, 1000);`),
  });
  const child = app.spawn('run.js', { env: { UP: upstream.url } });
  await waitForLine(child, /ready/);
  child.kill('SIGINT');
  const result = await collect(child);
  assert.equal(result.code, 7);
  assert.match(result.stdout, /app handled/);
  assert.equal(app.captures().length, 1);
  assert.equal(app.captures()[0]!.status, '7');
});

test('an ESM app with --import probe/register uses the named exports', async () => {
  const app = new TestApp({
    'app.mjs': `import { job, pool, label } from 'probe';
import { get } from 'node:http';
const UP = process.env.UP;
await job('import-job', async () => {
  label('esm');
  await pool(() => Promise.all([fetch(UP + '/json').then((r) => r.text()), new Promise((ok) => get(UP + '/text', (res) => { res.resume(); res.on('end', ok); }))]));
});
`,
  });
  const run = await app.run('app.mjs', { preload: 'import', env: { UP: upstream.url } });
  assert.equal(run.code, 0, run.stderr);
  const jobCapture = app.captures().find((c) => c.type === 'job') as Capture;
  assert.ok(jobCapture, run.stderr);
  assert.equal(jobCapture.label, 'esm');
  const rows = jobCapture.sections.http!;
  assert.equal(rows.length, 2, 'fetch and a named import of http.get are both recorded');
  assert.deepEqual(
    rows.map((r) => r.pool),
    [1, 1],
  );
  assert.equal(rows[0]!.origin!.file, 'app.mjs');
});

test('a failed job is `failed` and the app still sees its own error', async () => {
  const app = new TestApp({
    'run.js': script(`const { job } = require('probe');
job('flaky', async () => { await fetch(UP + '/status/503'); throw new Error('upstream down'); })
  .catch((e) => console.log('caught ' + e.message));`),
  });
  const run = await app.run('run.js', { env: { UP: upstream.url } });
  assert.equal(run.stdout.trim(), 'caught upstream down');
  const jobCapture = app.captures().find((c) => c.type === 'job')!;
  assert.equal(jobCapture.status, 'failed');
  assert.equal(jobCapture.ended_by, 'error');
  assert.equal(jobCapture.sections.http![0]!.status, 503);
});

test('command(name, fn) delimits a sub-command capture', async () => {
  const app = new TestApp({
    'run.js': script(`const { command } = require('probe');
command('import users', async () => { await fetch(UP + '/json').then((r) => r.text()); });`),
  });
  await app.run('run.js', { env: { UP: upstream.url } });
  const sub = app.captures().find((c) => c.name === 'import users')!;
  assert.equal(sub.type, 'command');
  assert.equal(sub.status, '0');
  assert.equal(sub.sections.http!.length, 1);
});
