// Issue 28: the credential scan jumps between the literals its formats start with, and the JSON pre-scan reads a
// member's name where it read the string, instead of reading back from each colon. Both must answer exactly as
// the scans they replaced (kept in test/helpers/*Reference.ts): the same masked text, the same "may need
// masking", on generated texts built from the pieces the scans look for. Tokens are built by concatenation so
// that this file holds none whole (secret scanners read repositories too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holdsCredential, maskCredentials } from '../../src/mask/credentialValues';
import { jsonMayNeedMasking } from '../../src/mask/jsonPrescan';
import { jsonBodyCapture } from '../../src/builder/jsonBody';
import { resolveConfig } from '../../src/config/resolve';
import * as reference from '../helpers/credentialScanReference';
import { jsonMayNeedMasking as referencePrescan } from '../helpers/jsonPrescanReference';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const isSecret = (name: string) => masker.isSecretName(name);
const j = (...parts: string[]) => parts.join('');
const B62 = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cF0hJ';

/** A small seeded generator: the same texts on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Pieces the credential scan reacts to (prefixes, boundaries, escapes, digits before colons) and filler. */
const TOKEN_PIECES = [
  j('ey', 'J'),
  j('ey', 'J', B62.slice(0, 12)),
  '.',
  '..',
  B62,
  B62.slice(0, 7),
  j('gh', 'p_'),
  j('github', '_pat_'),
  j('xo', 'xb-'),
  j('xa', 'pp-'),
  'hooks.slack.com/services/',
  'hooks.slack.com%2Fworkflows%2F',
  'T0/B0/',
  j('sk', '_live_'),
  j('sk', '_test_'),
  j('rk', '_live_'),
  j('sk', '-'),
  j('sk', '-proj-'),
  j('wh', 'sec_'),
  j('AK', 'IA'),
  j('AS', 'IA'),
  j('AI', 'za'),
  'ABCDEFGHIJKLMNOP',
  '-----BEGIN',
  ' RSA PRIVATE KEY-----',
  ' CERTIFICATE-----',
  '-----END',
  '1234567',
  '123456789012',
  '9',
  ':',
  '%3A',
  '%3a',
  '/bot',
  'bot',
  '%41',
  '\\n',
  '\\"',
  ' ',
  '-',
  '_',
  '"',
  'a',
  'e',
  's',
  'x',
  '\u00e9',
];

function generate(pieces: readonly string[], next: () => number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += pieces[Math.floor(next() * pieces.length)];
  return out;
}

test('the credential scan masks exactly what the character-by-character scan masked (generated texts)', () => {
  const next = random(28);
  let masked = 0;
  for (let n = 0; n < 6000; n++) {
    const text = generate(TOKEN_PIECES, next, 1 + Math.floor(next() * 40));
    const expected = reference.maskCredentials(text);
    assert.equal(maskCredentials(text), expected, JSON.stringify(text));
    assert.equal(holdsCredential(text), reference.holdsCredential(text), JSON.stringify(text));
    if (expected !== text) masked++;
  }
  // The generator reaches both answers often.
  assert.ok(masked > 1000, `${masked} texts had something masked`);
});

test('a credential is masked at the start, in the middle, at the end, after each kind of boundary', () => {
  const tokens = [
    j('ey', 'JhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxIn0', '.', 'abc_DEF-123'),
    j('gh', 'p_', B62),
    j('sk', '_live_', B62),
    j('sk', '-proj-', B62),
    j('AK', 'IA', 'ABCDEFGHIJKLMNOP'),
    j('1234567', '89:', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'),
    j('-----BEGIN', ' EC PRIVATE KEY-----', 'MIIEv'),
  ];
  for (const token of tokens) {
    for (const [before, after] of [
      ['', ''],
      ['x ', ' y'],
      ['"', '"'],
      ['a=', '&b=1'],
      ['%20', '%20'],
      ['\\n', '\\n'],
      ['/bot', '/send'],
    ] as const) {
      const text = `${before}${token}${after}`;
      const expected = reference.maskCredentials(text);
      assert.equal(maskCredentials(text), expected, text);
      if (before !== '/bot' || token.startsWith('1234567')) assert.notEqual(expected, text, text);
    }
  }
});

/** Pieces of JSON and of the texts inside its strings that the pre-scan reads: names, separators, escapes. */
const JSON_PIECES = [
  '{',
  '}',
  '[',
  ']',
  ',',
  '"',
  '"',
  '"',
  ':',
  ':',
  ' : ',
  '\n',
  '\t',
  '=',
  '&',
  '?',
  '\\',
  '\\"',
  '\\\\',
  '\\u0077',
  '\\n',
  'id',
  'name',
  'pass',
  'word',
  'password',
  'token',
  'prompt_tokens',
  'api_key',
  'apiKey',
  '__proto__',
  'pass%77ord',
  'a+b',
  '%zz',
  '12',
  '16:00:01',
  'ok',
  'true',
  ' ',
];

test('the JSON pre-scan answers as the one that read back from each colon (generated texts)', () => {
  const next = random(2828);
  const answers = { true: 0, false: 0 };
  for (let n = 0; n < 20000; n++) {
    const text = generate(JSON_PIECES, next, 1 + Math.floor(next() * 30));
    const expected = referencePrescan(text, isSecret);
    assert.equal(jsonMayNeedMasking(text, isSecret), expected, JSON.stringify(text));
    answers[String(expected) as 'true' | 'false']++;
  }
  assert.ok(answers.true > 2000 && answers.false > 2000, JSON.stringify(answers));
  // A string with an escape found clean is remembered as written: one of the same length with a secret is not it.
  for (const text of ['{"a":"\\"notes: 1","b":"\\"token: 1"}', '["\\"x=1&y=2","\\"x=1&pin=2","\\"x=1&y=2"]']) {
    assert.equal(jsonMayNeedMasking(text, isSecret), true, text);
    assert.equal(referencePrescan(text, isSecret), true, text);
  }
});

/** A page of records as APIs answer (bench/lib/answer.mjs's shape), with `extra` in each record. */
function page(records: number, extra: (id: number) => Record<string, unknown> = () => ({})): string {
  const items = Array.from({ length: records }, (_, i) => ({
    id: i + 1,
    number: `ORD-${100001 + i}`,
    status: ['paid', 'shipped', 'refunded'][i % 3],
    created_at: new Date(Date.UTC(2026, 10, 25, 16, 0, i % 60)).toISOString(),
    customer: { name: `Customer ${i}`, email: `customer${i}@example.test`, country: 'FR' },
    lines: [{ sku: `SKU-${i * 7}`, quantity: 1 + (i % 4), price: 19.99 }],
    note: 'Leave at the door, ring twice: "back entrance"',
    ...extra(i),
  }));
  return JSON.stringify({ ok: true, items, user: { name: 'ada' } }, null, records % 2 ? 2 : undefined);
}

test('a page with no secret is stored as it came, unparsed, and the same as the slow path stores it', () => {
  for (const records of [1, 40, 41, 400]) {
    const text = page(records);
    assert.equal(masker.jsonMayNeedMasking(text), false);
    assert.equal(referencePrescan(text, isSecret), false);
    const parse = JSON.parse;
    const parsed: string[] = [];
    JSON.parse = (...args: Parameters<typeof JSON.parse>) => {
      parsed.push(args[0]);
      return parse(...args);
    };
    let fast;
    try {
      fast = jsonBodyCapture('JsonCapture', text, masker);
    } finally {
      JSON.parse = parse;
    }
    // A string holding an escape (each record's note) is decoded alone, once for the page since all are the
    // same; the body itself is never parsed.
    assert.deepEqual(parsed, ['"Leave at the door, ring twice: \\"back entrance\\""']);
    assert.equal(fast.raw, text);
    assert.deepEqual(fast, jsonBodyCapture('JsonCapture', text, masker, { prescan: false }));
  }
});

test('a secret anywhere in a page is found, and masked as the slow path masks it', () => {
  const placements: Array<[string, (id: number) => Record<string, unknown>]> = [
    ['a secret-named member', (id) => (id === 7 ? { password: 'hunter2' } : {})],
    ['a secret-named member, nested', (id) => (id === 7 ? { auth: { api_key: 'k-1' } } : {})],
    ['a name with an escape', (id) => (id === 7 ? { 'pass\u0077ord\n': 'x' } : {})],
    ['a secret-named pair in a string', (id) => (id === 7 ? { memo: 'password: hunter2' } : {})],
    ['a query in a string', (id) => (id === 7 ? { url: 'https://x.test/cb?access_token=abc' } : {})],
    ['a form in a string', (id) => (id === 7 ? { body: 'a=1&secret=s' } : {})],
    ['a credential value', (id) => (id === 7 ? { x: j('gh', 'p_', B62) } : {})],
    ['a credential in an escaped string', (id) => (id === 7 ? { x: `"${j('sk', '_live_', B62)}"` } : {})],
    ['a credential as a name', (id) => (id === 7 ? { [j('sk', '_test_', B62)]: 1 } : {})],
    ['__proto__', (id) => (id === 7 ? JSON.parse('{"__proto__": {"a": 1}}') : {})],
  ];
  for (const [what, extra] of placements) {
    for (const records of [8, 9, 40]) {
      const text = page(records, extra);
      assert.equal(masker.jsonMayNeedMasking(text), true, what);
      const fast = jsonBodyCapture('JsonCapture', text, masker);
      assert.deepEqual(fast, jsonBodyCapture('JsonCapture', text, masker, { prescan: false }), what);
      // A member's name is kept as it is, credential-shaped or not (as before), and a `__proto__` member is kept
      // as sent: the parse happens, nothing changes.
      if (what !== 'a credential as a name' && what !== '__proto__') assert.notEqual(fast.raw, text, `${what}: masked`);
    }
  }
});
