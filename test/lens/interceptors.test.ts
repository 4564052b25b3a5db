import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/**
 * An interceptor that patches node:http (nock, through @mswjs/interceptors) sees the arguments the app passed,
 * whichever form they take, and an app's own wrapper of a request's `emit` sees the events Node emits. The app
 * prints what nock answered, what its recorder wrote and the events it saw; run without Probe, with Probe
 * preloaded, and with Probe started after nock patched node:http, the output must be the same.
 */
const APP = `
if (process.env.START_AFTER === '1') require('nock');
const http = require('node:http');
const https = require('node:https');
const nock = require('nock');
if (process.env.START_AFTER === '1') require('probe').start();
const U = new URL(process.env.UPSTREAM), S = new URL(process.env.UPSTREAM_TLS);
const out = [];
const log = (...a) => out.push(a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' '));
const call = (make) => new Promise((resolve) => {
  let req;
  const done = (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve('answered ' + res.statusCode + ' ' + t)); };
  try { req = make(done); } catch (e) { resolve('threw ' + e.name + ': ' + e.message); return; }
  req.on('error', (e) => resolve('failed ' + e.code + ': ' + e.message));
  if (!req.writableEnded) req.end();
});
// Each form of arguments node:http takes, with a nock scope that matches it exactly as Node reads it.
const FORMS = [
  ['https host+port', 'https://example.test:123', '/a', (cb) => https.request({ host: 'example.test', port: 123, path: '/a' }, cb)],
  ['http host+port', 'http://example.test:8080', '/b', (cb) => http.request({ host: 'example.test', port: 8080, path: '/b' }, cb)],
  ['IPv6 hostname', 'http://[::1]:8123', '/c', (cb) => http.request({ hostname: '::1', port: 8123, path: '/c' }, cb)],
  ['https agent', 'https://example.test', '/d', (cb) => https.request({ host: 'example.test', path: '/d', agent: new https.Agent() }, cb)],
  ['agent decides the protocol', 'http://example.test:443', '/e', (cb) => http.request({ host: 'example.test', path: '/e', agent: new https.Agent() }, cb)],
  ['URL and options', 'https://example.test:4443', '/f?q=1', (cb) => https.request(new URL('https://example.test:4443/f?q=1'), { method: 'POST', headers: { 'x-a': '1' } }, cb)],
  ['https.get text', 'https://example.test', '/g', (cb) => https.get('https://example.test/g', { headers: { 'x-b': '2' } }, cb)],
  ['socketPath-less defaults', 'http://localhost', '/h', (cb) => http.get({ path: '/h' }, cb)],
];
const events = [];
const watch = (req, label) => { const emit = req.emit; req.emit = function (event) { events.push(label + ' ' + String(event)); return emit.apply(this, arguments); }; return req; };
(async () => {
  for (const disallowed of [true, false]) {
    if (disallowed) nock.disableNetConnect(); else nock.enableNetConnect(/127\\.0\\.0\\.1/);
    for (const [label, origin, path, make] of FORMS) {
      const scope = nock(origin).intercept(path, label === 'URL and options' ? 'POST' : 'GET').reply(200, label);
      log(disallowed ? 'disallowed' : 'allowed', label, await call(make), scope.isDone());
      nock.cleanAll();
    }
  }
  nock.enableNetConnect();
  // The recorder writes what it saw go out: scope, protocol and port as the app asked.
  nock.recorder.rec({ output_objects: true, dont_print: true });
  log('recorded call', await call((cb) => https.request({ host: S.hostname, port: Number(S.port), path: '/text?rec=1' }, cb)));
  log('recorded call', await call((cb) => http.request({ hostname: U.hostname, port: U.port, path: '/text?rec=2' }, cb)));
  log('recorded', nock.recorder.play().map((r) => [r.scope.replace(/:\\d+$/, ':PORT'), r.method, r.path, r.status]));
  nock.recorder.clear();
  nock.restore();
  // What a wrapper of emit sees: an answered call, a refused one, and one nock refuses.
  await call((cb) => watch(http.request({ host: U.hostname, port: U.port, path: '/text' }, cb), 'answered'));
  await call(() => watch(http.request({ host: '127.0.0.1', port: Number(process.env.CLOSED_PORT), path: '/' }), 'refused'));
  nock.activate();
  nock.disableNetConnect();
  await call(() => watch(http.request({ host: 'nock.test', path: '/' }), 'disallowed'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  log('events', events);
  console.log(out.join('\\n'));
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

/**
 * An interceptor that patched node:http before Probe (loaded first with `--require`): it records the arguments of
 * every call it gets, and the app checks they are its own objects, in the same number, unchanged.
 */
const SPY = `
const seen = (globalThis.spySeen = []);
for (const name of ['http', 'https']) {
  const mod = require(name);
  for (const fn of ['request', 'get']) {
    const original = mod[fn];
    mod[fn] = function () { seen.push([name + '.' + fn, arguments]); return original.apply(this, arguments); };
  }
}
`;

const SPY_APP = `
const http = require('node:http');
const https = require('node:https');
const U = new URL(process.env.UPSTREAM), S = new URL(process.env.UPSTREAM_TLS);
const out = [];
const same = (label, args) => {
  const before = JSON.stringify(args, (k, v) => (k === 'agent' ? 'an agent' : v instanceof URL ? v.href : typeof v === 'function' ? 'fn' : v));
  globalThis.spySeen.length = 0;
  return () => {
    const calls = globalThis.spySeen.map(([fn, got]) => fn + ' ' + (got.length === args.length && args.every((a, i) => a === got[i]) ? 'own arguments' : 'other arguments'));
    const after = JSON.stringify(args, (k, v) => (k === 'agent' ? 'an agent' : v instanceof URL ? v.href : typeof v === 'function' ? 'fn' : v));
    out.push(label + ': ' + calls.join(', ') + (before === after ? '' : ' changed to ' + after));
  };
};
const call = (mod, fn, label, ...args) => new Promise((resolve) => {
  const seen = same(label, args);
  const req = mod[fn](...args);
  seen();
  req.on('response', (res) => { res.resume(); res.on('end', resolve); });
  req.on('error', (e) => { out.push(label + ' failed ' + e.code); resolve(); });
  if (fn === 'request') req.end();
});
(async () => {
  const cb = () => {};
  await call(http, 'request', 'http options', { host: U.hostname, port: U.port, path: '/text' });
  await call(http, 'request', 'http options and callback', { hostname: U.hostname, port: Number(U.port), path: '/text', headers: { 'x-a': '1' } }, cb);
  await call(https, 'request', 'https options', { host: S.hostname, port: Number(S.port), path: '/text' });
  await call(https, 'request', 'https URL and options', new URL(S.href + 'text'), { method: 'GET', headers: {} }, cb);
  await call(http, 'get', 'http.get text', U.href + 'text');
  await call(https, 'get', 'https.get text and options', S.href + 'text', { headers: { 'x-b': '2' } }, cb);
  await call(http, 'get', 'http.get options with an agent', { host: U.hostname, port: U.port, path: '/text', agent: new http.Agent() });
  console.log(out.join('\\n'));
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

describe('interceptors see what they would without Probe', () => {
  let up: Upstreams;
  let closedPort: string;
  before(async () => {
    up = await startUpstreams();
    const net = await import('node:net');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closedPort = String((server.address() as import('node:net').AddressInfo).port);
    await new Promise((resolve) => server.close(resolve));
  });
  after(() => up.close());

  it('nock matches every option form, its recorder writes the same scopes, and emit sees the same events', async () => {
    const env = { CLOSED_PORT: closedPort };
    const baseline = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'none', env });
    assert.equal(baseline.result.code, 0, baseline.result.stderr);
    // The oracle holds what the forms are for: nock answers each one, and the recorder saw https.
    assert.match(baseline.result.stdout, /^disallowed https host\+port answered 200 https host\+port true$/m);
    assert.match(baseline.result.stdout, /^allowed IPv6 hostname answered 200 IPv6 hostname true$/m);
    assert.match(baseline.result.stdout, /"https:\/\/[^"]+:PORT","GET","\/text\?rec=1",200/);
    assert.match(baseline.result.stdout, /refused Symbol\(events\.errorMonitor\)|refused error/);
    const runs = [
      { label: 'preloaded', options: { preload: 'require' as const, env } },
      { label: 'preloaded as ESM', options: { preload: 'import' as const, env } },
      { label: 'started after nock', options: { preload: 'none' as const, env: { ...env, START_AFTER: '1' } } },
    ];
    for (const { label, options } of runs) {
      const run = await runLensApp(up, { 'app.js': APP }, 'app.js', options);
      assert.equal(run.result.code, 0, `${label}: ${run.result.stderr}`);
      const expected = baseline.result.stdout.split('\n');
      const actual = run.result.stdout.split('\n');
      for (let i = 0; i < Math.max(expected.length, actual.length); i++) assert.equal(actual[i], expected[i], `${label}: line ${i + 1}`);
      // And Probe recorded: nock's answers as fakes, and (unless nock.restore() put back the functions it found
      // before Probe started) the recorder's real calls with the port each one went to.
      const urls = run.rows.map((row) => row.url);
      if (label !== 'started after nock') {
        assert.ok(urls.includes(`${up.tls.url}/text?rec=1`), `${label}: ${urls.join(' ')}`);
        assert.ok(urls.includes(`${up.plain.url}/text?rec=2`), `${label}: ${urls.join(' ')}`);
      }
      const fake = run.rows.find((row) => row.url === 'https://example.test:123/a');
      assert.equal(fake?.fake, true, `${label}: nock's answer to https host+port is a fake row`);
    }
  });
  it("an interceptor patched before Probe gets the caller's own arguments to request and get", async () => {
    const files = { 'spy.js': SPY, 'app.js': SPY_APP };
    const baseline = await runLensApp(up, files, 'app.js', { preload: 'none', env: { NODE_OPTIONS: '--require ./spy.js' } });
    assert.equal(baseline.result.code, 0, baseline.result.stderr);
    assert.match(baseline.result.stdout, /^https URL and options: https\.request own arguments$/m);
    assert.match(baseline.result.stdout, /^http\.get text: http\.get own arguments$/m);
    for (const preload of ['--require probe/register', '--import probe/register']) {
      const run = await runLensApp(up, files, 'app.js', { preload: 'none', env: { NODE_OPTIONS: `--require ./spy.js ${preload}` } });
      assert.equal(run.result.code, 0, `${preload}: ${run.result.stderr}`);
      assert.equal(run.result.stdout, baseline.result.stdout, preload);
      assert.equal(run.rows.length, 7, `${preload}: every call recorded`);
    }
  });
});
