// Issue 28: a JSON body with nothing to mask is stored unparsed. The pre-scan (mask/jsonPrescan.ts) decides; the
// fast path and the slow path (parse, mask, serialise) must store the same, and the pre-scan must never say
// "nothing to mask" of a body masking would change. Its cost is counted in steps, not timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { jsonBodyCapture } from '../../src/builder/jsonBody';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

/** Bodies masking leaves alone: the pre-scan must let them through unparsed. */
const CLEAN = [
  '{"id":1,"name":"ada","ok":true,"n":null}',
  '[{"a":[1,2,{"b":"c"}]},"x",3.5,-0,1e3]',
  '{\n  "items": [\n    {"id": 1, "at": "2026-11-25T16:12:45Z", "url": "https://x.test/a?page=2&sort=asc"}\n  ]\n}',
  '{"text":"caf\\u00e9 \\"quoted\\" line\\nnext","path":"a\\/b"}',
  '{"next_page_token":"abc","prompt_tokens":12,"max_tokens":30,"token_type":"bearer"}',
  '"just a string"',
  '42',
  '{"ok": true, }',
  '{"a":"x=1&y=2","b":"k: v"}',
];

/** Bodies with something to mask, in every place the slow path finds it. */
const SECRET = [
  '{"id":1,"password":"p"}',
  '{"a":{"b":[{"api_key":"k"}]}}',
  '{"pass\\u0077ord":"p"}',
  '{"token"  \n :\t"t"}',
  '{"Authorization":"Bearer abc"}',
  `{"note":"${JWT}"}`,
  `{"note":"\\u0065${JWT.slice(1)}"}`,
  '{"q":"password: hunter2"}',
  '{"q":"  secret:\\"x\\""}',
  '{"q":"{\\"password\\":\\"x\\"}"}',
  '{"u":"https://x.test/cb?access_token=abc&x=1"}',
  '{"u":"a=1&pass%77ord=2"}',
  '{"__proto__":{"x":1},"a":2}',
  `{"${'x'.repeat(200)}_password":"p"}`,
  `{"k":"${'x'.repeat(200)} token=abc"}`,
  '{"ok": true, "password": "p-7777", }',
  '{"ok": true, "token": ',
  `${'['.repeat(70)}"token=abc"${']'.repeat(70)}`,
  '{"pem":"-----BEGIN PRIVATE KEY-----\\nMIIEv\\n-----END PRIVATE KEY-----"}',
  '{"password":null,"x":"y"}',
];

test('the fast path and the slow path store the same, with and without secrets', () => {
  for (const text of [...CLEAN, ...SECRET]) {
    const fast = jsonBodyCapture('JsonCapture', text, masker);
    const slow = jsonBodyCapture('JsonCapture', text, masker, { prescan: false });
    assert.deepEqual(fast, slow, text);
  }
});

test('bodies with nothing to mask are not parsed; bodies with a secret-named key or a credential are', () => {
  for (const text of CLEAN) assert.equal(masker.jsonMayNeedMasking(text), false, text);
  // `{"password":null}` included: the pre-scan reads names, not values (it errs towards parsing).
  for (const text of SECRET) assert.equal(masker.jsonMayNeedMasking(text), true, text);
});

/** A small deterministic generator of JSON-ish text from pieces that do and do not need masking. */
function* bodies(count: number): Generator<string> {
  let seed = 28;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const keys = ['id', 'name', 'password', 'pass\\u0077ord', 'nextPageToken', 'api_key', 'x-api-key', 'note', 'a b', 'tok\\"en', 'session_id', 'ssn'];
  const strings = [
    'ok',
    'a:b',
    'token: x',
    'password=1',
    '\\"secret\\": 2',
    'https://h.test/?code=1',
    JWT,
    'ghp_' + 'a1'.repeat(18),
    'x\\ny',
    '12:30',
    'sk-',
    '\\u0041KIA' + 'B'.repeat(16),
    '',
  ];
  const value = (depth: number): string => {
    const pick = next(depth > 3 ? 3 : 6);
    if (pick === 0) return `"${strings[next(strings.length)]}"`;
    if (pick === 1) return String(next(1000) - 500);
    if (pick === 2) return ['true', 'false', 'null'][next(3)]!;
    if (pick === 3) return `[${Array.from({ length: next(4) }, () => value(depth + 1)).join(',')}]`;
    const members = Array.from({ length: next(4) }, () => `"${keys[next(keys.length)]}"${' \n\t'.slice(0, next(3))}:${value(depth + 1)}`);
    return `{${members.join(',')}}`;
  };
  for (let i = 0; i < count; i++) {
    const text = value(0);
    yield text;
    // Cut, as a body past the cap or a broken one is: it no longer parses.
    yield text.slice(0, next(text.length + 1));
  }
}

test('the pre-scan never lets through a body that masking would change (generated bodies, whole and cut)', () => {
  let fast = 0;
  for (const text of bodies(3000)) {
    const a = jsonBodyCapture('JsonCapture', text, masker);
    const b = jsonBodyCapture('JsonCapture', text, masker, { prescan: false });
    assert.deepEqual(a, b, text);
    if (!masker.jsonMayNeedMasking(text)) {
      fast++;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        assert.equal(masker.text(text), text, text);
        continue;
      }
      assert.equal(masker.maskValueChanged(parsed).changed, false, text);
    }
  }
  assert.ok(fast > 500, `the fast path was taken ${fast} times`);
});

test('the pre-scan is linear in the body, whatever it holds (steps, not time)', () => {
  const shapes: Record<string, (n: number) => string> = {
    page: (n) => JSON.stringify(Array.from({ length: n / 40 }, (_, i) => ({ id: i, name: `n${i}`, at: '12:30:00' }))),
    colons: (n) => '":'.repeat(n / 2),
    'quotes and colons': (n) => '"a":'.repeat(n / 4),
    backslashes: (n) => `"${'\\'.repeat(n - 4)}":`,
    'escaped quotes': (n) => '\\":'.repeat(n / 3),
    'bare names': (n) => 'a:'.repeat(n / 2),
    'long name runs': (n) => `${'a'.repeat(127)}=`.repeat(n / 128),
    'long name runs with colons': (n) => `${'a'.repeat(127)}:`.repeat(n / 128),
    'escaped strings': (n) => `[${'"\\u0041:b=c",'.repeat(n / 14)}1]`,
    'one open quote': (n) => `"${'a:'.repeat(n / 2)}`,
    digits: (n) => '1:'.repeat(n / 2),
  };
  for (const [name, make] of Object.entries(shapes)) {
    const perChar: number[] = [];
    for (const n of [4_000, 16_000, 64_000]) {
      const text = make(n);
      const stats = { steps: 0 };
      masker.jsonMayNeedMasking(text, stats);
      perChar.push(stats.steps / text.length);
    }
    // Steps per character stay bounded and do not grow with the size.
    assert.ok(Math.max(...perChar) < 10, `${name}: ${perChar.join(', ')} steps per character`);
    assert.ok(perChar[2]! <= perChar[0]! * 1.1 + 1, `${name}: ${perChar.join(', ')} steps per character`);
  }
});
