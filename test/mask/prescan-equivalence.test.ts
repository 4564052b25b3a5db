// Issue 28, second pass: the JSON pre-scan reads code units from a typed array and jumps inside long strings, and
// the credential scan skips digits before a colon that cannot end a Telegram token's digits. Both must answer
// exactly as the scans they replaced (test/helpers/jsonPrescanBefore.ts, credentialScanBefore.ts), on generated
// bodies: records whose members are named in every case and style, secret or not, `__proto__`, secret pairs
// inside strings, escaped names, credential formats in values, long strings with something past their first
// characters, unicode, text that does not parse. Tokens are built by concatenation so that this file holds none
// whole (secret scanners read repositories too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holdsCredential, maskCredentials } from '../../src/mask/credentialValues';
import { jsonMayNeedMasking } from '../../src/mask/jsonPrescan';
import { resolveConfig } from '../../src/config/resolve';
import { holdsCredential as holdsCredentialBefore } from '../helpers/credentialScanBefore';
import * as reference from '../helpers/credentialScanReference';
import { jsonMayNeedMasking as before } from '../helpers/jsonPrescanBefore';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const isSecret = (name: string) => masker.isSecretName(name);
const j = (...parts: string[]) => parts.join('');
const B62 = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cF0hJ';

/** A small seeded generator: the same bodies on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Member names: plain, secret in each style and case, near misses, escaped, `__proto__`, unicode, long. */
const NAMES = [
  'id',
  'name',
  'status',
  'created_at',
  'password',
  'Password',
  'PASSWORD',
  'userPassword',
  'user_password',
  'user-password',
  'api_key',
  'apiKey',
  'X-Api-Key',
  'accessToken',
  'access_token',
  'client_secret',
  'prompt_tokens',
  'next_page_token',
  'passport',
  '__proto__',
  'pass\\u0077ord',
  'to\\u006ben',
  'a\\"b',
  'caf\u00e9',
  '\u540d\u524d',
  'x'.repeat(40),
  `${'y'.repeat(20)}secret`,
  '',
];

/** String values: plain, long, with pairs, queries, forms, escapes, credentials, colons past the first characters. */
const VALUES = [
  'ada',
  '2026-11-25T16:00:01.000Z',
  'Leave at the door, ring twice: \\"back entrance\\"',
  'password: hunter2',
  'the notes say token=abc somewhere',
  `https://api.example.test/v2/items?page=2&${'q'.repeat(20)}=x`,
  'https://x.test/cb?access_token=abc',
  'a=1&secret=s',
  'a=1&b=2',
  `${'lorem ipsum '.repeat(6)}password: x`,
  `${'lorem ipsum '.repeat(6)}id: 1`,
  `${'lorem ipsum '.repeat(6)}\\n`,
  `${'lorem ipsum '.repeat(6)}\\\\`,
  'line\\npassword: x',
  '\\"password\\": \\"x\\"',
  'pass\\u0077ord=1',
  'caf\u00e9 \u00e0 l\u2019heure, \ud83d\ude80',
  j('gh', 'p_', B62),
  j('sk', '_live_', B62),
  j('ey', 'JhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxIn0', '.', 'abc_DEF-123'),
  j('1234567', '89:', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'),
  '12345:67',
  '123456:7',
  'x'.repeat(60),
  '\\u0000\\t',
  '',
];

const CLEAN_NAMES = NAMES.filter((name) => !/pass|secret|key|token|Token|proto/i.test(name) || name === 'prompt_tokens' || name === 'next_page_token');
const CLEAN_VALUES = VALUES.filter((value) => !/pass|secret|token|_live_|gh|eyJ|89:/.test(value));

function pick<T>(items: readonly T[], next: () => number): T {
  return items[Math.floor(next() * items.length)]!;
}

/** A JSON-like body of records: mostly well formed, sometimes cut, with stray characters, pretty or not. */
function body(next: () => number): string {
  const records: string[] = [];
  const count = 1 + Math.floor(next() * 4);
  for (let r = 0; r < count; r++) {
    const members: string[] = [];
    const size = 1 + Math.floor(next() * 5);
    for (let m = 0; m < size; m++) {
      const space = next() < 0.2 ? ' ' : '';
      // Mostly clean members (as real pages are), so that both answers come often.
      const value = next() < 0.7 ? `"${pick(next() < 0.85 ? CLEAN_VALUES : VALUES, next)}"` : pick(['1', 'true', 'null', '19.99', '{}', '[1,2]'], next);
      members.push(`"${pick(next() < 0.85 ? CLEAN_NAMES : NAMES, next)}"${space}:${space}${value}`);
    }
    records.push(`{${members.join(',')}}`);
  }
  let text = `{"items":[${records.join(next() < 0.3 ? ',\n  ' : ',')}]}`;
  const damage = next();
  if (damage < 0.1) text = text.slice(0, Math.floor(next() * text.length));
  else if (damage < 0.15) text = text.replace('"', '');
  else if (damage < 0.2) text += pick(['"', '\\', '}', 'token=1', ' pass: 1'], next);
  return text;
}

test('the pre-scan answers as the one before it on generated bodies (exactly: never false where it said true)', () => {
  const next = random(2828_2);
  const answers = { true: 0, false: 0 };
  for (let n = 0; n < 12000; n++) {
    const text = body(next);
    const expected = before(text, isSecret);
    assert.equal(jsonMayNeedMasking(text, isSecret), expected, JSON.stringify(text));
    answers[String(expected) as 'true' | 'false']++;
  }
  // The generator reaches both answers often.
  assert.ok(answers.true > 2000 && answers.false > 1000, JSON.stringify(answers));
});

test('the pre-scan answers as before with one secret at any place in a long clean page (jumps, scratch buffer)', () => {
  const record = (id: number, extra: string) =>
    `{"id":${id},"title":"Product number ${id}","description":"${'a quiet long text without any of them '.repeat(3)}${extra}","url":"https://x.test/p/${id}?a=1"}`;
  const plants = ['', 'password: x', 'x?token=1', 'pass\\u0077ord: 1', '\\"password\\": 1', j('gh', 'p_', B62), 'caf\u00e9'];
  // 3 records: a small text; 400 and 1800: the scratch buffer grown; 2600 (over 512 K characters): a buffer of its own.
  for (const records of [3, 400, 1800, 2600]) {
    for (const plant of plants) {
      for (const at of [0, Math.floor(records / 2), records - 1]) {
        const items = Array.from({ length: records }, (_, id) => record(id, id === at ? plant : ''));
        const text = `[${items.join(',')}]`;
        const expected = before(text, isSecret);
        assert.equal(jsonMayNeedMasking(text, isSecret), expected, `${records} records, ${plant} at ${at}`);
        assert.equal(expected, plant !== '' && plant !== 'caf\u00e9', `${records} records, ${plant} at ${at}`);
      }
    }
  }
});

test('the credential scan finds what it found before on generated texts, and masks what the first scan masked', () => {
  const next = random(28_2);
  const pieces = [
    '1',
    '12345',
    '123456',
    '1234567890123',
    ':',
    '%3A',
    '%3a',
    'bot',
    '/bot',
    'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0',
    'x',
    '-',
    ' ',
    j('gh', 'p_'),
    B62,
  ];
  let found = 0;
  for (let n = 0; n < 8000; n++) {
    let text = '';
    for (let k = 1 + Math.floor(next() * 20); k > 0; k--) text += pick(pieces, next);
    const expected = holdsCredentialBefore(text);
    assert.equal(holdsCredential(text), expected, JSON.stringify(text));
    assert.equal(maskCredentials(text), reference.maskCredentials(text), JSON.stringify(text));
    if (expected) found++;
  }
  assert.ok(found > 300, `${found} texts held a credential`);
});

test('the pre-scan reads each character a bounded number of times, whatever the text (steps, not the clock)', () => {
  for (const unit of ['"a:b=c\\\\d",', '"' + 'x'.repeat(40) + ':",', 'a:'.repeat(10), '"\\"', '{"k":"v"}']) {
    const steps = (n: number) => {
      const stats = { steps: 0 };
      jsonMayNeedMasking(unit.repeat(n), () => false, stats);
      return stats.steps;
    };
    const small = steps(1000);
    const large = steps(8000);
    assert.ok(large <= small * 8 * 1.1, `${unit}: ${small} steps at 1000, ${large} at 8000`);
  }
});
