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
