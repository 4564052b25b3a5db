import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRow } from '../../src/capture/types';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const CONFIG = `
const { GraphqlCapture, JsonCapture, PartialMask } = require('probe');
class TextCapture {
  static capture({ body, response }) { return { cards: { first: body.split(' ')[0], status: response.status, password: 'leak' } }; }
}
module.exports = {
  lenses: { HttpClientLens: { bodies: true, max_body_bytes: 4096, max_rows: 12, capture: { response_types: {
    'application/graphql*': GraphqlCapture,
    'text/*': TextCapture,
    'text/plain': JsonCapture,
    'application/json': JsonCapture,
  } } } },
  mask: { headers: { 'x-custom-key': new PartialMask() }, inputs: ['pin', /^card_/] },
};
`;

const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
(async () => {
  const call = async (path, init) => { const r = await fetch(U + path, init); await r.arrayBuffer(); };
  await call('/json?c=json&token=abc&pin=1234&page=2');
  await call('/echo?c=echo', { method: 'POST', headers: { 'content-type': 'application/json', 'x-custom-key': 'abcdefghijkl' }, body: JSON.stringify({ card_number: '4111', pin: '9', keep: 'k' }) });
  await call('/echo?c=gql', { method: 'POST', headers: { 'content-type': 'application/graphql+json' }, body: JSON.stringify({ query: 'query { login(password: "hunter2", user: "ada") { id } }' }) });
  await call('/text?c=text');
  await call('/html?c=html');
  await call('/echo?c=plain', { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'raw password=visible kept=visible' });
  await call('/big?bytes=10000&c=big');
  await call('/echo?c=bigjson', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(5000), password: 'p' }) });
  await call('/deflate?c=deflate');
  await new Promise((resolve) => http.get('http://user:pw@127.0.0.1:' + new URL(U).port + '/json?c=userinfo', (res) => { res.resume(); res.on('end', resolve); }));
  await call('/binary?c=binary');
  await call('/invalid-json?c=invalid');
  for (let i = 0; i < 3; i++) await call('/text?c=over' + i);
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

function byMarker(rows: HttpRow[], marker: string): HttpRow {
  const row = rows.find((r) => new URL(r.url.replace('********', 'x')).searchParams.get('c') === marker);
  assert.ok(row, `a row for ${marker}`);
  return row;
}

describe('lens options, masking and response captures', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  it('applies bodies, caps, masks, GraphQL formatting and response_types (first match wins)', async () => {
    const run = await runLensApp(up, { 'app.js': APP, 'probe.config.js': CONFIG }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    const rows = run.rows;
    assert.equal(rows.length, 12, 'max_rows keeps 12 rows');
    assert.equal(run.capture!.summary.totals?.http_calls, 15, 'totals count every call');

    const json = byMarker(rows, 'json');
    assert.equal(json.url, `${up.plain.url}/json?c=json&token=********&pin=********&page=2`);
    assert.equal(json.response_body, null, 'a capture handled it');
    assert.equal(json.response_capture?.capture, 'JsonCapture');
    assert.match(json.response_capture!.raw as string, /"token":"\*\*\*\*\*\*\*\*"/);

    const echo = byMarker(rows, 'echo');
    assert.deepEqual(echo.request_payload, { card_number: '********', pin: '********', keep: 'k' });
    assert.equal(echo.request_headers['x-custom-key'], '********ijkl');
    assert.doesNotMatch(echo.request_body as string, /4111|"9"/);
    assert.match(echo.request_body as string, /"keep":"k"/);

    const gql = byMarker(rows, 'gql');
    assert.equal(gql.response_capture?.capture, 'GraphqlCapture', 'application/graphql* wildcard');
    assert.equal(gql.request_formats?.query?.format, 'graphql');
    assert.doesNotMatch(gql.request_formats!.query!.text, /hunter2/);
    assert.match(gql.request_formats!.query!.text, /"ada"/);
    // (The upstream echoes the request, so only the request side is Probe's to mask.)
    assert.doesNotMatch(
      JSON.stringify([gql.request_payload, gql.request_body, gql.request_formats]),
      /hunter2/,
      'the secret literal appears nowhere on the request side',
    );

    const text = byMarker(rows, 'text');
    assert.equal(text.response_capture?.capture, 'TextCapture', 'text/* comes first and wins over text/plain');
    assert.deepEqual(text.response_capture?.cards, { first: 'hello', status: 200, password: '********' });
    assert.equal(byMarker(rows, 'html').response_capture?.capture, 'TextCapture');

    const plain = byMarker(rows, 'plain');
    assert.equal(plain.request_payload, null);
    assert.equal(plain.request_body, 'raw password=******** kept=visible', 'bodies that are neither JSON nor form: secret-named pairs masked as text');
    assert.equal(plain.response_capture, null, 'no pattern matches application/octet-stream');
    assert.equal(plain.response_body, 'raw password=******** kept=visible');

    const big = byMarker(rows, 'big');
    assert.equal(big.response_bytes, 10000, 'sizes count every byte');
    assert.equal(big.truncated, true);
    assert.ok(Buffer.byteLength(big.response_body as string) <= 4096 * 3, 'kept body is capped');

    const bigJson = byMarker(rows, 'bigjson');
    assert.equal(bigJson.truncated, true);
    assert.equal(bigJson.response_capture, null, 'a truncated JSON body skips its capture');
    assert.equal(bigJson.request_bytes, Buffer.byteLength(JSON.stringify({ pad: 'x'.repeat(5000), password: 'p' })));

    const deflate = byMarker(rows, 'deflate');
    assert.deepEqual(deflate.response_capture?.cards, { ok: true, token: '********', items: [1, 2, 3], user: { name: 'ada', password: '********' } });

    const userinfo = byMarker(rows, 'userinfo');
    // node:http turns userinfo into an Authorization header: the URL row has none, the header is masked.
    assert.doesNotMatch(userinfo.url, /pw/);
    assert.equal(userinfo.request_headers.authorization, '********');

    for (const marker of ['binary', 'invalid']) {
      const row = byMarker(rows, marker);
      assert.equal(row.status, 200);
      assert.equal(row.failed, false);
      assert.equal(typeof row.response_bytes, 'number');
    }
  });

  it('keeps no bodies without the option', async () => {
    const run = await runLensApp(up, { 'app.js': APP }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    for (const row of run.rows) {
      assert.equal(row.request_body, null);
      assert.equal(row.response_body, null);
    }
    assert.equal(run.rows.length, 15);
    assert.equal(byMarker(run.rows, 'big').truncated, undefined, 'under the 1 MiB default');
  });
});
