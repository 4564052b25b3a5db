// node:http calls take their caller's stack where the app calls http.request/get (httpEntry), above
// instrumentation-http's wrappers, and fall back to a capture in the lens's hook otherwise. Tests: the
// wrapper's own contract on a module of node:http's shape, and real apps (CJS, ESM with named imports,
// axios and got, a ClientRequest made directly) whose rows must name the exact line that made each call.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRow } from '../../src/capture/types';
import { takeEntryStack, wrapHttpEntries } from '../../src/lens/httpEntry';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/** The line of the caller's call site (generated code: call sites are not source-mapped). */
function callerLine(): number {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_error, sites) => sites;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  Error.captureStackTrace(holder, callerLine);
  const line = holder.stack![0]!.getLineNumber()!;
  Error.prepareStackTrace = prepare;
  return line;
}

describe('wrapHttpEntries', () => {
  it('takes the stack at the call, once, and lets it go when the call returns', () => {
    const seen: Array<NodeJS.CallSite[] | null | undefined> = [];
    const mod = {
      request: (..._args: unknown[]) => {
        seen.push(takeEntryStack());
        seen.push(takeEntryStack()); // a second request inside one call gets nothing
        return 'req';
      },
      get: function get(this: unknown, ...args: unknown[]) {
        return mod.request(...args); // https.get calls request: the outer call's stack stands
      },
    };
    const originals = { request: mod.request, get: mod.get };
    const unwrap = wrapHttpEntries([mod]);
    assert.notEqual(mod.request, originals.request);
    assert.equal(mod.get.name, 'get', 'the wrapper keeps the name');
    // Both on one line: the call site's own (generated) line number, as V8's call sites report it.
    const [result, callLine] = [mod.get('u'), callerLine()];
    assert.equal(result, 'req');
    const sites = seen[0];
    assert.ok(Array.isArray(sites) && sites.length > 0);
    const mine = sites.find((site) => site.getFileName()?.endsWith('http-entry.test.ts'));
    assert.equal(mine?.getLineNumber(), callLine, 'the first frame of this file is the line that called get');
    assert.equal(seen[1], undefined);
    assert.equal(takeEntryStack(), undefined, 'nothing left over after the call');
    unwrap();
    assert.equal(mod.request, originals.request);
    assert.equal(mod.get, originals.get);
  });

  it("carries shimmer's marks, so instrumentations see the module as before", () => {
    const inner = () => 'req';
    const wrapped = Object.assign(() => inner(), {});
    for (const [mark, value] of [
      ['__wrapped', true],
      ['__original', inner],
      ['__unwrap', () => {}],
    ] as const)
      Object.defineProperty(wrapped, mark, { value, configurable: true, writable: true });
    const mod = { request: wrapped as (...args: unknown[]) => unknown, get: () => null };
    const unwrap = wrapHttpEntries([mod]);
    assert.notEqual(mod.request, wrapped);
    const marks = mod.request as unknown as Record<string, unknown>;
    assert.equal(marks.__wrapped, true);
    assert.equal(marks.__original, inner);
    assert.equal(typeof marks.__unwrap, 'function');
    unwrap();
  });

  it("shows another agent's symbol marks, live, so its guard against wrapping twice still holds", () => {
    // elastic-apm-node's shimmer marks its wrappers with a private symbol and skips a function that has it.
    const isWrapped = Symbol('elasticAPMIsWrapped');
    const agentWrapper = Object.assign(() => 'req', { [isWrapped]: true });
    const mod = { request: agentWrapper as (...args: unknown[]) => unknown, get: () => null };
    const unwrap = wrapHttpEntries([mod]);
    assert.notEqual(mod.request, agentWrapper);
    const marks = mod.request as unknown as Record<symbol, unknown>;
    assert.equal(marks[isWrapped], true);
    (agentWrapper as unknown as Record<symbol, unknown>)[isWrapped] = false;
    assert.equal(marks[isWrapped], false, 'read through to the agent wrapper');
    unwrap();
  });

  it('leaves nothing pending when the call throws, and does not wrap twice', () => {
    const mod = {
      request: () => {
        throw new TypeError('bad url');
      },
      get: () => null,
    };
    const unwrap = wrapHttpEntries([mod]);
    const once = mod.request;
    wrapHttpEntries([mod]);
    assert.equal(mod.request, once, 'a wrapped function is not wrapped again');
    assert.throws(() => mod.request(), TypeError);
    assert.equal(takeEntryStack(), undefined);
    unwrap();
  });
});

const CALLS = `
function viaGet(url) { return new Promise((resolve) => http.get(url, (res) => { res.resume(); res.on('end', resolve); })); }
function viaRequest(url) { return new Promise((resolve) => { const req = http.request(url, (res) => { res.resume(); res.on('end', resolve); }); req.end(); }); }
// What a caller that bypasses Probe's wrapper reaches (instrumentation-http's request): the lens captures.
const bypass = http.request[Symbol.for('probe.http.entry.original')];
function viaBypass(url) { return new Promise((resolve) => { const req = bypass(url, (res) => { res.resume(); res.on('end', resolve); }); req.end(); }); }
function viaHttps(url) { return new Promise((resolve) => https.get(url, (res) => { res.resume(); res.on('end', resolve); })); }
async function main() {
  const U = process.env.UPSTREAM, S = process.env.UPSTREAM_TLS;
  await viaGet(U + '/json?c=get');
  await viaRequest(U + '/json?c=request');
  if (!bypass) throw new Error('http.request is not wrapped');
  await viaBypass(U + '/json?c=bypass');
  await viaGet(U + '/json?c=get-again');
  await viaHttps(S + '/json?c=https');
  await axios.get(U + '/json?c=axios');
  const got = (await import('got')).default;
  await got(U + '/json?c=got').text();
}
main().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

/** The line of `needle` in the app's source (1-based), where its call is made. */
function lineOf(source: string, needle: string): number {
  const index = source.split('\n').findIndex((line) => line.includes(needle));
  assert.ok(index >= 0, needle);
  return index + 1;
}

function rowOf(rows: HttpRow[], marker: string): HttpRow {
  const found = rows.filter((row) => new URL(row.url).searchParams.get('c') === marker);
  assert.equal(found.length, 1, `one row for ${marker}: ${rows.map((r) => r.url).join(', ')}`);
  return found[0]!;
}

describe('origins of node:http calls', () => {
  let up: Upstreams;
  before(async () => {
    up = await startUpstreams();
  });
  after(() => up.close());

  for (const [kind, file, head] of [
    ['CommonJS', 'app.js', `const http = require('node:http'); const https = require('node:https'); const axios = require('axios');`],
    [
      'ESM with named imports',
      'app.mjs',
      `import * as http from 'node:http'; import { get as httpsGet } from 'node:https'; import axios from 'axios'; const https = { get: httpsGet };`,
    ],
  ] as const) {
    it(`name the line that made each call (${kind})`, async () => {
      const source = `${head}\n${CALLS}`;
      const run = await runLensApp(up, { [file]: source }, file);
      assert.equal(run.result.code, 0, run.result.stderr);
      const expect = (marker: string, needle: string, fn: string) => {
        const row = rowOf(run.rows, marker);
        assert.equal(row.origin?.file, file, marker);
        assert.equal(row.origin?.line, lineOf(source, needle), `${marker}: line`);
        assert.ok(row.origin!.chain.includes(`${file}:${lineOf(source, needle)} ${fn}`), `${marker}: chain ${row.origin!.chain}`);
        assert.ok(
          row.origin!.chain.some((frame) => frame.includes(' main')),
          `${marker}: the chain reaches main`,
        );
      };
      expect('get', 'function viaGet', 'viaGet');
      expect('request', 'function viaRequest', 'viaRequest');
      expect('bypass', 'function viaBypass', 'viaBypass');
      expect('get-again', 'function viaGet', 'viaGet');
      expect('https', 'function viaHttps', 'viaHttps');
      // Client libraries call http.request from a promise chain of their own: recorded through the wrapper.
      for (const marker of ['axios', 'got']) assert.equal(rowOf(run.rows, marker).status, 200);
    });
  }
});
