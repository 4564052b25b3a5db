// Masker.url answers most URLs with a scan instead of the URL parser. Whatever the scan lets through must be
// exactly what the parser-based masking gives: a secret never survives, and nothing else is respelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const urls = [
  'http://127.0.0.1:8080/users/42',
  'https://api.test/users/42?q=1&page=2',
  'https://api.test/users/42?token=abc&q=1',
  'https://api.test/?TOKEN=abc',
  'https://api.test/?api_key',
  'https://api.test/?a=1&&password=x&',
  'https://api.test/?to%6Ben=abc',
  'https://api.test/?client+secret=abc',
  'https://api.test/?tok\nen=abc',
  'https://api.test/?tok\ten=abc',
  'https:\\\\api.test\\?token=abc',
  'https://user:pw@api.test/x',
  'https://user@api.test/x',
  'https://api.test/path@x?y=1',
  'https://api.test/x?next=a@b&secret=s',
  'https://api.test/x#frag?token=abc',
  'https://api.test/x?q=1#token=abc',
  'https://api.test:99999/x?token=abc',
  'not a url?token=abc',
  '/relative?token=abc',
  'ws://api.test/socket?access_token=abc',
  'https://api.test/x?',
  'https://api.test/x?=1',
  'https://ünïcode.test/ä?token=ü',
  ' https://api.test/x?token=abc ',
  'https://bucket.s3.us-east-1.amazonaws.com/k.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-Security-Token=FwoG&X-Amz-Signature=abc123&X-Amz-SignedHeaders=host&x-id=GetObject',
  'https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&se=2026-01-01&sr=b&sp=r&sig=AbC%2Bd%3D',
  'https://collector.newrelic.com/agent_listener/invoke_raw_method?method=connect&license_key=nr-123&protocol_version=17',
  'https://api.test/v1/chat?apiKey=qs-camel&max_tokens=5',
  'https://app.test/cb#access_token=abc&token_type=bearer',
  'https://app.test/cb#section=2',
  'https://u:p@ss@api.test:99999/x?token=abc#sig=s',
  'https://api.test/x?card%5Bnumber%5D=4242&card%5Bcvc%5D=123&card%5Bexp_month%5D=12',
];

test('the scan and the parser mask every URL alike', () => {
  for (const raw of urls) assert.equal(masker.url(raw), masker.maskByParser(raw), JSON.stringify(raw));
});

test('secrets in the query and the password never survive', () => {
  // The parser path itself, which the first test takes as the reference.
  assert.doesNotMatch(masker.maskByParser('https://api.test/?to%6Ben=abc&q=1'), /abc/);
  assert.doesNotMatch(masker.url('https://api.test/users/42?token=abc&q=1'), /abc/);
  assert.doesNotMatch(masker.url('https://u:hunter2@api.test/'), /hunter2/);
  assert.doesNotMatch(masker.url('https://api.test/?to%6Ben=abc'), /abc/);
  assert.doesNotMatch(masker.url('https://api.test/?tok\nen=abc'), /abc/);
  assert.equal(masker.url('https://api.test/x?q=1'), 'https://api.test/x?q=1', 'kept as the app spelled it');
});

test('presigned URLs, SAS, license keys, camelCase keys, fragments and unparseable URLs keep no secret', () => {
  const secrets: Array<[string, RegExp]> = [
    [urls.find((u) => u.includes('X-Amz-Signature'))!, /ASIA|FwoG|abc123/],
    [urls.find((u) => u.includes('sig='))!, /AbC/],
    [urls.find((u) => u.includes('license_key'))!, /nr-123/],
    [urls.find((u) => u.includes('apiKey'))!, /qs-camel/],
    [urls.find((u) => u.includes('#access_token'))!, /abc/],
    [urls.find((u) => u.includes('99999'))!, /ss@|abc|=s$/],
    [urls.find((u) => u.includes('card%5B'))!, /4242|=123/],
    ['/relative?token=abc', /abc/],
  ];
  for (const [raw, secret] of secrets) assert.doesNotMatch(masker.url(raw), secret, raw);
  const presigned = new URL(masker.url(secrets[0]![0]));
  assert.equal(presigned.searchParams.get('X-Amz-Expires'), '900', 'what is not a credential stays');
  assert.equal(presigned.searchParams.get('x-id'), 'GetObject');
  assert.match(masker.url(urls.find((u) => u.includes('apiKey'))!), /max_tokens=5/);
  assert.equal(masker.url('https://app.test/cb#section=2'), 'https://app.test/cb#section=2');
  assert.match(masker.url(urls.find((u) => u.includes('card%5B'))!), /exp_month%5D=12/);
});
