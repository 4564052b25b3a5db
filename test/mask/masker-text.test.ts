// Raw text that does not parse as a whole (cut at max_body_bytes, invalid JSON, JSON lines, JSON under
// another content type, event streams): secret-named values are masked as text, never kept as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import type { CallInput } from '../../src/builder/input';
import { callInput, rowOf as buildRow } from '../helpers/call-input';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const M = '********';

// Every secret holds a `7`; nothing else in DOC does, so any `7` left in the output is a leak.
const DOC = JSON.stringify({
  user: 'ada',
  access_token: 'at-7777.abc',
  usage: { prompt_tokens: 12, max_tokens: 30 },
  items: [
    { id: 1, password: 'pw-7777' },
    { id: 2, nested: { authorization: 'Bearer 7777-bearer', apiKey: 'k-7777', pinned: 'kept' } },
  ],
  'API-KEY': 7777,
  client_secret: 'cs\\"7777\\"',
  session_token: { a: [7777, { b: '7777' }] },
  refresh_token: 'rt-7777-last',
});

test('a JSON body cut anywhere: every secret before the cut and the one the cut falls in are masked', () => {
  for (let cut = 0; cut <= DOC.length; cut++) {
    const out = masker.body(DOC.slice(0, cut), 'application/json');
    assert.ok(!out.includes('7'), `cut at ${cut}: ${out}`);
  }
  const whole = DOC.slice(0, DOC.indexOf('rt-7777') + 4);
  assert.equal(
    masker.body(whole, 'application/json'),
    `{"user":"ada","access_token":"${M}","usage":{"prompt_tokens":12,"max_tokens":30},"items":[{"id":1,"password":"${M}"},` +
      `{"id":2,"nested":{"authorization":"${M}","apiKey":"${M}","pinned":"kept"}}],"API-KEY":"${M}","client_secret":"${M}",` +
      `"session_token":"${M}","refresh_token":"${M}`,
    'only secret values change; a value cut before its closing quote is masked to the end',
  );
});

test('bare values: numbers, true and false are masked, null stays null (as in parsed JSON)', () => {
  const out = masker.body('{"pinned": 1, "password": 1234, "token": true, "secret": false, "api_key": null, "signature": -1.5e3, "x": 1', 'application/json');
  assert.equal(out, `{"pinned": 1, "password": "${M}", "token": "${M}", "secret": "${M}", "api_key": null, "signature": "${M}", "x": 1`);
});

test('the whole-name rule holds in text: look-alikes stay readable', () => {
  const text = '{"prompt_tokens": 5, "api_key_id": "a", "tokenizer": "b", "NextToken": "c", "apiKey": "d", "X-Amz-Signature": "e", "pass\\u0077ord": "f"';
  assert.equal(
    masker.text(text),
    `{"prompt_tokens": 5, "api_key_id": "a", "tokenizer": "b", "NextToken": "c", "apiKey": "${M}", "X-Amz-Signature": "${M}", "pass\\u0077ord": "${M}"`,
  );
});

test('JSON lines, invalid JSON and JSON under another content type', () => {
  const ndjson = '{"id":1,"token":"t-7777"}\n{"id":2,"nested":{"password":"p-7777"}}\n{"id":3,"api_key":"k-77';
  for (const type of ['application/x-ndjson', 'application/jsonl', 'application/json', 'text/plain', null]) {
    const out = masker.body(ndjson, type);
    assert.ok(!out.includes('7'), `${type}: ${out}`);
    assert.ok(out.startsWith(`{"id":1,"token":"${M}"}\n{"id":2,`), `${type}: lines kept as sent`);
  }
  const invalid = '{\'a\': 1, "password": "p-7777", trailing: [1,2,],}';
  assert.equal(masker.body(invalid, 'application/json'), `{'a': 1, "password": "${M}", trailing: [1,2,],}`);
  const stray = 'error: expected "}" near "password": "p-7777" in {"token": "t-7777"}';
  assert.ok(!masker.body(stray, 'text/html').includes('7'), 'a stray quote earlier in the text hides no pair');
});

test('JSON sent with a form content type is read as JSON, in the payload and the body', () => {
  const body = '{"password":"p-7777","keep":"k"}';
  assert.equal(masker.body(body, 'application/x-www-form-urlencoded'), `{"password":"${M}","keep":"k"}`);
  const row = rowOf({
    requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
    requestBody: { chunks: [Buffer.from(body)], size: body.length, truncated: false },
  });
  assert.deepEqual(row.request_payload, { password: M, keep: 'k' });
});

test('form-like text: name=value pairs with secret names, bracketed and percent-encoded names', () => {
  const text = 'grant_type=password&username=ada&password=p-7777&client_secret=cs%2F7777&card%5Bnumber%5D=4242777&user[password]=x7&scope=read';
  assert.equal(
    masker.body(text, 'text/plain'),
    `grant_type=password&username=ada&password=${M}&client_secret=${M}&card%5Bnumber%5D=${M}&user[password]=${M}&scope=read`,
  );
  assert.equal(masker.body('raw password=p-7777 more', 'application/octet-stream'), `raw password=${M} more`);
  // A URL inside a JSON string value keeps its shape.
  const json = '{"next": "https://api.test/cb?code=c-7777&state=s", "x": "y';
  assert.equal(masker.body(json, 'application/json'), json, 'no secret name, nothing changed');
  const tokenUrl = '{"next": "https://api.test/cb?access_token=a-7777&state=s", "x": "y';
  assert.equal(masker.body(tokenUrl, 'application/json'), `{"next": "https://api.test/cb?access_token=${M}&state=s", "x": "y`);
  assert.equal(masker.body('a=1&token=', 'text/plain'), 'a=1&token=', 'an empty value has nothing to mask');
});

test('event streams: the last event cut short and data that is not JSON are masked in the raw text and the cards', () => {
  const stream = 'data: {"id":1,"token":"t-7777"}\n\ndata: token=q-7777\n\n: comment password=c-7777\n\ndata: {"id":2,"access_token":"a-77';
  const raw = masker.body(stream, 'text/event-stream');
  assert.ok(!raw.includes('7'), raw);
  assert.ok(raw.endsWith(`data: {"id":2,"access_token":"${M}`), raw);
  const row = rowOf({
    responseHeaders: { 'content-type': 'text/event-stream' },
    responseBody: { chunks: [Buffer.from(stream)], size: stream.length + 100, truncated: true },
  });
  const capture = row.response_capture!;
  assert.equal(capture.capture, 'EventStreamCapture');
  assert.ok(!JSON.stringify(capture).includes('7'), JSON.stringify(capture));
  assert.deepEqual(
    (capture.cards as { events: unknown[] }).events.map((e) => (e as { data: unknown }).data),
    [{ id: 1, token: M }, `token=${M}`],
  );
});

test('a JSON response that fails to parse keeps a masked raw body in its capture', () => {
  const body = '{"ok": true, "password": "p-7777", }';
  const row = rowOf({
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: { chunks: [Buffer.from(body)], size: body.length, truncated: false },
  });
  assert.equal(row.response_capture?.raw, `{"ok": true, "password": "${M}", }`);
  assert.equal(row.response_capture?.cards, null);
});

test('a megabyte of hostile text completes (no backtracking)', () => {
  const MiB = 1 << 20;
  const fill = (unit: string) => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);
  const hostile = [
    fill('":'),
    fill('\\"'.repeat(60) + '":'),
    '{"password":"' + fill('\\'),
    '{"secret":' + fill('['),
    fill('"password":"x",'),
    fill('a'.repeat(127) + '='),
    fill('&token=x'),
    fill(' ') + ':',
    fill('"x"      :'),
    fill('"' + 'a'.repeat(126) + '":'),
    fill('"\\\\":=&?"'),
  ];
  for (const text of hostile) {
    for (const type of ['application/json', 'text/plain', 'text/event-stream']) assert.equal(typeof masker.body(text, type), 'string');
  }
});

const bodiesConfig = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { bodies: true } } }, env: {} });

function rowOf(over: Partial<CallInput>) {
  return buildRow(callInput({ method: 'POST', ...over }), bodiesConfig);
}
