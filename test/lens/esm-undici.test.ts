import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const JSON_LENGTH = Buffer.byteLength(
  JSON.stringify({ ok: true, token: 'upstream-secret-token', items: [1, 2, 3], user: { name: 'ada', password: 'hunter2' } }),
);

/** An ESM app that imports undici's fetch by name: the binding Probe must still wrap. */
const APP = `
import { fetch, request } from 'undici';
import * as undici from 'undici';
import undiciDefault from 'undici';
const U = process.env.UPSTREAM;
let r = await fetch(U + '/redirect/3?c=named');
console.log('named', r.status, r.redirected, (await r.json()).ok);
r = await undici.fetch(U + '/redirect/2?c=namespace');
console.log('namespace', r.status, (await r.json()).ok);
r = await undiciDefault.fetch(U + '/redirect/1?c=default');
console.log('default', r.status, (await r.json()).ok);
const { fetch: dynamicFetch } = await import('undici');
r = await dynamicFetch(U + '/redirect/1?c=dynamic');
console.log('dynamic', r.status, (await r.json()).ok);
const u = await request(U + '/text?c=request');
console.log('request', u.statusCode, await u.body.text());
console.log('same', fetch === undici.fetch, typeof undiciDefault.Agent);
`;

describe('ESM import of undici fetch', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const preload of ['require', 'import'] as const) {
    it(`folds redirect hops of an imported undici fetch into one row (--${preload})`, async () => {
      const run = await runLensApp(up, { 'app.mjs': APP }, 'app.mjs', { preload });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.result.stderr, '');
      assert.match(run.result.stdout, /named 200 true true/);
      assert.match(run.result.stdout, /same true function/);
      const rows = run.rows;
      assert.equal(rows.length, 5, rows.map((r) => r.url).join('\n'));
      for (const [marker, redirects] of [
        ['named', 3],
        ['namespace', 2],
        ['default', 1],
        ['dynamic', 1],
      ] as const) {
        const found = rows.filter((row) => new URL(row.url).searchParams.get('c') === marker);
        assert.equal(found.length, 1, `${marker}: one row for the app call`);
        const row = found[0]!;
        assert.equal(row.url, `${up.plain.url}/redirect/${redirects}?c=${marker}`);
        assert.equal(row.status, 200);
        assert.equal(row.response_bytes, JSON_LENGTH);
        assert.equal(row.timing?.redirects, redirects, `${marker}: redirects`);
        assert.equal(typeof row.timing?.redirect, 'number');
        assert.equal(row.origin?.file, 'app.mjs');
      }
      assert.equal(rows.filter((row) => row.url.endsWith('/json')).length, 0, 'hops are not rows of their own');
    });
  }

  for (const [label, files] of [
    ['a .js entry in a "type": "module" package', { 'package.json': JSON.stringify({ name: 'esm-app', type: 'module' }), 'app.js': APP }],
    ['a .js entry with ESM syntax and no package type (module detection)', { 'app.js': APP }],
  ] as const) {
    it(`hooks ${label}`, async () => {
      const run = await runLensApp(up, files, 'app.js', { env: { NODE_NO_WARNINGS: '1' } });
      assert.equal(run.result.code, 0, run.result.stderr);
      const named = run.rows.filter((row) => row.url.endsWith('c=named'));
      assert.equal(named.length, 1, run.rows.map((r) => r.url).join('\n'));
      assert.equal(named[0]!.timing?.redirects, 3);
    });
  }

  it('runs the same ESM app unchanged without Probe (baseline)', async () => {
    const bare = await runLensApp(up, { 'app.mjs': APP }, 'app.mjs', { preload: 'none' });
    const probed = await runLensApp(up, { 'app.mjs': APP }, 'app.mjs', { preload: 'require' });
    assert.equal(bare.result.code, 0, bare.result.stderr);
    assert.equal(probed.result.stdout, bare.result.stdout);
  });
});
