import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Capture, HttpRow } from '../../src/capture/types';
import type { CallInput, UnitInput } from '../../src/builder/input';
import type { ProbeConfig } from '../../src/config/types';
import type { Har } from '../../src/export/harTypes';
import { buildCapture } from '../../src/builder/buildCapture';
import { resolveConfig } from '../../src/config/resolve';
import { harOf, harTimings } from '../../src/export/har';
import { allFixtureCaptures, CHECKOUT_ID, row } from '../dashboard/fixture-captures';
import { TestApp } from '../helpers/app';
import { startUpstreams, type Upstreams } from '../lens/lens-app';
import { harErrors } from './har-schema';

const T0 = 1_700_000_000_000;
const SECRETS = ['sk_live_topsecret', 'hunter2', 'query-secret-value', 'cookie-secret'];

function sumOf(t: Har['log']['entries'][number]['timings']): number {
  return [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].reduce((sum, v) => sum + Math.max(0, v), 0);
}

function call(over: Partial<CallInput> = {}): CallInput {
  return {
    spanId: 'a1',
    parentSpanId: null,
    method: 'post',
    url: 'https://api.test/v1/charges?token=query-secret-value&currency=eur#frag',
    requestHeaders: { authorization: 'Bearer sk_live_topsecret', cookie: 'sid=cookie-secret', 'content-type': 'application/json' },
    requestBody: { chunks: [Buffer.from(JSON.stringify({ amount: 5, password: 'hunter2' }))], size: 33, truncated: false },
    status: 201,
    responseHeaders: { 'content-type': 'application/json', 'set-cookie': 'sid=cookie-secret' },
    responseBody: { chunks: [Buffer.from('{"id":"ch_1","client_secret":"hunter2"}')], size: 39, truncated: false },
    clientDecodes: true,
    start: T0 + 10,
    end: T0 + 40,
    timing: { dns: 1, connect: 2, tls: 3, wait: 10, download: 4, remote: '10.1.2.3:443', protocol: 'HTTP/1.1', redirects: 0 },
    error: null,
    pool: null,
    fake: false,
    origin: { file: 'src/pay.js', line: 7, chain: ['src/pay.js:7 charge'] },
    ...over,
  };
}

function captureOf(calls: CallInput[], file: ProbeConfig = {}): Capture {
  const unit: UnitInput = {
    id: 'cap_har_0001',
    type: 'request',
    name: 'POST /pay',
    status: '200',
    parentId: null,
    traceId: 'f'.repeat(32),
    linkedVia: null,
    rootSpanId: null,
    startedAt: T0,
    endedAt: T0 + 100,
    endedBy: 'response',
    label: null,
    tags: [],
    jobId: null,
    meta: { pid: 1, hostname: 'h', node: 'v20', service: 's' },
    request: null,
    spans: [],
    calls,
    pools: [],
  };
  return buildCapture(unit, resolveConfig({ root: '/app', configFile: null, file, env: {} }));
}

describe('HAR from captures (pure)', () => {
  it('every fixture capture (hostile URLs, failures, fakes, pools, 1,000 rows) is valid HAR 1.2 per har-schema', () => {
    for (const capture of allFixtureCaptures()) {
      const har = harOf([capture], '1.2.3');
      assert.deepEqual(harErrors(har), [], capture.name);
      assert.equal(har.log.version, '1.2');
      assert.deepEqual(har.log.creator, { name: 'Probe', version: '1.2.3' });
      assert.equal(har.log.entries.length, capture.sections.http?.length ?? 0);
      assert.deepEqual(
        har.log.pages.map((p) => p.id),
        [capture.id],
      );
      for (const entry of har.log.entries) assert.ok(Math.abs(entry.time - sumOf(entry.timings)) < 1e-6, 'time is the sum of the timings');
    }
    assert.deepEqual(harErrors(harOf(allFixtureCaptures(), '0')), [], 'several captures in one log');
    assert.notDeepEqual(harErrors({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [{ time: -1 }] } }), [], 'the validator does reject');
  });

  it('masked values stay masked: headers, query, cookies, payload and bodies carry ******** and no secret', () => {
    for (const bodies of [false, true]) {
      const capture = captureOf([call()], { lenses: { HttpClientLens: { bodies } } });
      const har = harOf([capture], '0');
      assert.deepEqual(harErrors(har), []);
      const text = JSON.stringify(har);
      for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} is not in the HAR (bodies ${bodies})`);
      const entry = har.log.entries[0]!;
      assert.equal(entry.request.url, 'https://api.test/v1/charges?token=********&currency=eur', 'masked, without the fragment');
      assert.deepEqual(entry.request.queryString, [
        { name: 'token', value: '********' },
        { name: 'currency', value: 'eur' },
      ]);
      assert.deepEqual(
        entry.request.headers.find((h) => h.name === 'authorization'),
        { name: 'authorization', value: '********' },
      );
      assert.deepEqual(entry.request.cookies, [], 'a masked cookie header lists no cookies');
      assert.deepEqual(JSON.parse(entry.request.postData!.text!), { amount: 5, password: '********' });
      assert.equal(entry.request.postData!.mimeType, 'application/json');
      assert.deepEqual(JSON.parse(entry.response.content.text!), { id: 'ch_1', client_secret: '********' });
      assert.equal(entry.request.method, 'POST');
      assert.equal(entry.request.bodySize, 33);
      assert.equal(entry.response.status, 201);
      assert.equal(entry.response.statusText, 'Created');
      assert.equal(entry.response.content.size, 39);
      assert.equal(entry.serverIPAddress, '10.1.2.3');
      assert.equal(entry.connection, '443');
      assert.equal(entry.comment, 'src/pay.js:7');
      assert.equal(entry.startedDateTime, new Date(T0 + 10).toISOString());
    }
  });

  it('timings: dns/connect/tls/wait/download mapped, ssl inside connect, -1 where not reached, the rest blocked', () => {
    const timed = (timing: HttpRow['timing'], duration = 30) => harTimings(row({ method: 'GET', url: 'https://x.test/', duration, timing }));
    assert.deepEqual(timed({ dns: 1, connect: 2, tls: 3, wait: 10, download: 4, redirects: 0 }), {
      blocked: 10,
      dns: 1,
      connect: 5,
      ssl: 3,
      send: 0,
      wait: 10,
      receive: 4,
    });
    assert.deepEqual(
      timed({ dns: 1, connect: 2, wait: 10, download: 4, redirects: 0 }, 17),
      { blocked: -1, dns: 1, connect: 2, ssl: -1, send: 0, wait: 10, receive: 4 },
      'plain HTTP: no ssl',
    );
    assert.deepEqual(
      timed({ wait: 10, download: 4, redirects: 0 }, 15.5),
      { blocked: 1.5, dns: -1, connect: -1, ssl: -1, send: 0, wait: 10, receive: 4 },
      'keep-alive reuse: no dns, connect, ssl',
    );
    assert.deepEqual(
      timed({ connect: 2, wait: 10, download: 4, redirects: 0 }, 16),
      { blocked: -1, dns: -1, connect: 2, ssl: -1, send: 0, wait: 10, receive: 4 },
      'an IP literal: no dns',
    );
    assert.deepEqual(timed(null, 12), { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 12, receive: 0 }, 'a fake or a failed connection: all wait');
    const redirected = timed({ wait: 5, download: 1, redirect: 20, redirects: 2 }, 30);
    assert.equal(redirected.blocked, 24);
    assert.match(redirected.comment!, /2 redirect hops/);
  });

  it('a failed call: status 0, Chromium-style _error; bodies kept raw with the bodies option, form fields as params', () => {
    const failed = captureOf([
      call({
        status: null,
        responseHeaders: {},
        responseBody: null,
        timing: null,
        end: T0 + 15,
        error: {
          class: 'TypeError',
          message: 'fetch failed',
          code: null,
          causes: [{ class: 'Error', message: 'connect ECONNREFUSED 10.1.2.3:443', code: 'ECONNREFUSED' }],
        },
      }),
    ]);
    const entry = harOf([failed], '0').log.entries[0]!;
    assert.deepEqual(harErrors(harOf([failed], '0')), []);
    assert.equal(entry.response.status, 0);
    assert.equal(entry.response.content.mimeType, 'x-unknown');
    assert.match(entry._error!, /ECONNREFUSED/);
    assert.equal(entry.time, 5);

    const form = captureOf([
      call({
        requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
        requestBody: { chunks: [Buffer.from('a=1&password=hunter2&a=2')], size: 24, truncated: false },
      }),
    ]);
    const formEntry = harOf([form], '0').log.entries[0]!;
    assert.deepEqual(formEntry.request.postData!.params, [
      { name: 'a', value: '1' },
      { name: 'a', value: '2' },
      { name: 'password', value: '********' },
    ]);
    assert.ok(!JSON.stringify(formEntry).includes('hunter2'));

    const raw = captureOf(
      [call({ requestHeaders: { 'content-type': 'text/plain' }, requestBody: { chunks: [Buffer.from('hello')], size: 5, truncated: false } })],
      { lenses: { HttpClientLens: { bodies: true } } },
    );
    assert.equal(harOf([raw], '0').log.entries[0]!.request.postData!.text, 'hello');
    const notKept = captureOf([
      call({ requestHeaders: { 'content-type': 'text/plain' }, requestBody: { chunks: [Buffer.from('hello')], size: 5, truncated: false } }),
    ]);
    assert.equal(harOf([notKept], '0').log.entries[0]!.request.postData!.text, undefined, 'a body Probe did not keep is not made up');
  });

  it('the checkout fixture: entries sorted by start, one page per capture', () => {
    const checkout = allFixtureCaptures().find((c) => c.id === CHECKOUT_ID)!;
    const har = harOf([checkout], '0');
    const starts = har.log.entries.map((e) => Date.parse(e.startedDateTime));
    assert.deepEqual(
      starts,
      [...starts].sort((a, b) => a - b),
    );
    assert.ok(har.log.entries.every((e) => e.pageref === CHECKOUT_ID));
  });
});

// A real app under the preload: a new TLS connection, a keep-alive reuse, a plain POST with secrets, a refused connection.
const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM, S = process.env.UPSTREAM_TLS;
async function main() {
  await (await fetch(S + '/json?c=tls-new')).json();
  // One socket for two requests: the second waits for it and reuses it.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (tag) => new Promise((resolve) => http.get(U + '/text?c=' + tag, { agent }, (res) => { res.resume(); res.on('end', resolve); }));
  await Promise.all([get('first-on-socket'), get('reused')]);
  agent.destroy();
  await (await fetch(U + '/echo?c=post&token=query-secret-value', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk_live_topsecret' }, body: JSON.stringify({ password: 'hunter2', n: 1 }) })).text();
  await new Promise((resolve) => http.get(U + '/text?c=http-get', (res) => { res.resume(); res.on('end', resolve); }));
  await fetch('http://127.0.0.1:' + process.env.CLOSED + '/x?c=refused').catch(() => {});
}
main().catch((e) => { console.error(e); process.exitCode = 1; });
`;

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('probe export (a real recorded capture, the built CLI)', () => {
  let up: Upstreams;
  let app: TestApp;
  let capture: Capture;

  before(async () => {
    up = await startUpstreams();
    app = new TestApp({ 'app.js': APP });
    const result = await app.run('app.js', {
      env: { UPSTREAM: up.plain.url, UPSTREAM_TLS: up.tls.url, NODE_EXTRA_CA_CERTS: up.tls.certFile, CLOSED: String(await closedPort()) },
    });
    assert.equal(result.code, 0, result.stderr);
    capture = app.captures().find((c) => c.type === 'command')!;
    assert.equal(capture.sections.http?.length, 6);
  });

  after(async () => {
    await up?.close();
  });

  it('--out writes a valid HAR with the recorded phases, masked values masked', async () => {
    const result = await app.cli(['export', capture.id, '--har', '--out', 'calls.har']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /6 calls written to .*calls\.har/);
    const text = readFileSync(path.join(app.dir, 'calls.har'), 'utf8');
    const har = JSON.parse(text) as Har;
    assert.deepEqual(harErrors(har), []);
    for (const secret of ['sk_live_topsecret', 'hunter2', 'query-secret-value']) assert.ok(!text.includes(secret), `${secret} stays masked`);
    const byTag = (tag: string) => har.log.entries.find((e) => new URL(e.request.url).searchParams.get('c') === tag)!;

    const fresh = byTag('tls-new');
    assert.ok(fresh.timings.ssl >= 0, 'a new TLS connection has ssl');
    assert.ok(fresh.timings.connect >= fresh.timings.ssl, 'connect includes ssl');
    assert.equal(fresh.serverIPAddress, '127.0.0.1');
    assert.equal(fresh.request.httpVersion, 'HTTP/1.1');
    assert.equal(fresh.response.status, 200);
    assert.ok(fresh.response.content.text!.includes('"password":"********"'));

    const reused = byTag('reused');
    assert.deepEqual([reused.timings.dns, reused.timings.connect, reused.timings.ssl], [-1, -1, -1], 'a reused connection reached none of them');
    assert.ok(byTag('first-on-socket').timings.connect >= 0);
    // Every entry against its row: the phases mapped one to one.
    const rows = capture.sections.http!;
    for (const entry of har.log.entries) {
      const t = rows.find((r) => new URL(r.url).href === entry.request.url)!.timing;
      if (!t) continue;
      assert.equal(entry.timings.dns, t.dns ?? -1);
      assert.equal(entry.timings.ssl, t.tls ?? -1);
      assert.equal(entry.timings.connect, t.connect === undefined ? -1 : Math.round((t.connect + (t.tls ?? 0)) * 1000) / 1000);
      assert.equal(entry.timings.wait, t.wait);
      assert.equal(entry.timings.receive, t.download);
    }

    const post = byTag('post');
    assert.equal(post.timings.ssl, -1, 'plain HTTP has no ssl');
    assert.deepEqual(JSON.parse(post.request.postData!.text!), { password: '********', n: 1 });
    assert.equal(post.request.headers.find((h) => h.name === 'authorization')!.value, '********');

    assert.equal(byTag('http-get').response.content.size, 'hello from upstream'.length);
    const refused = byTag('refused');
    assert.equal(refused.response.status, 0);
    assert.match(refused._error!, /ECONNREFUSED/);
    for (const entry of har.log.entries) assert.ok(Math.abs(entry.time - sumOf(entry.timings)) < 1e-6);
  });

  it('writes to stdout without --out and picks the newest capture with calls without an id', async () => {
    const named = await app.cli(['export', capture.id]);
    const newest = await app.cli(['export', '--har']);
    assert.equal(named.code, 0, named.stderr);
    assert.deepEqual(JSON.parse(newest.stdout), JSON.parse(named.stdout));
    assert.deepEqual(harErrors(JSON.parse(named.stdout)), []);
  });

  it('--help, a bad id and an unknown option', async () => {
    const help = await app.cli(['export', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: probe export \[id\|\*\] \[--har \| --msw \| --nock \| --undici-snapshot\] \[--out FILE\]/);
    const missing = await app.cli(['export', 'nosuchcapture1']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^probe export: no capture with id "nosuchcapture1"/);
    const typo = await app.cli(['export', '--hat']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /probe export: Unknown option '--hat'/);
    const listed = await app.cli(['--help']);
    assert.match(listed.stdout, /export\s+a capture's calls as HAR 1\.2/);
  });
});
