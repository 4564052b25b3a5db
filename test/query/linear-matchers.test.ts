import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob, matchGlob, type GlobSteps } from '../../src/util/glob';
import { findText } from '../../src/util/findText';
import { parseWhere } from '../../src/query/whereText';
import { QueryError } from '../../src/query/QueryError';
import { checkInputSizes, shownInput } from '../../src/query/inputs';

// Budgets are counted steps, not time: the machine's load must not decide a test.

const LONG_NAME = `GET /${'a'.repeat(3000)}`;

describe('glob matching', () => {
  const table: Array<[pattern: string, text: string, match: boolean]> = [
    ['GET /orders/*', 'GET /orders/42', true],
    ['GET /orders/*', 'GET /orders', false],
    ['*sync*', 'scripts/sync.js --all', true],
    ['GET /health', 'GET /health', true],
    ['GET /health', 'GET /healthz', false],
    ['?', 'é', true],
    ['?', '😀', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['*', '', true],
    ['', '', true],
    ['', 'x', false],
    ['**a**', 'bab', true],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYbZ', false],
    ['*.json', 'a.json.bak', false],
    ['a.b', 'aXb', false],
    ['(x)+[y]$', '(x)+[y]$', true],
    ['*a*a*a*b', LONG_NAME, false],
    ['*a*a*a*a', LONG_NAME, true],
    ['line*end', 'line\nend', true],
  ];
  for (const [pattern, text, match] of table) {
    test(`${JSON.stringify(pattern)} ${match ? 'matches' : 'does not match'} ${JSON.stringify(text.slice(0, 20))}`, () => {
      assert.equal(matchGlob(pattern, text), match);
    });
  }

  test('case is ignored when asked (capture names, content types), kept otherwise (except)', () => {
    assert.equal(compileGlob('get /ORDERS/*', { ignoreCase: true }).test('GET /orders/42'), true);
    assert.equal(compileGlob('get /ORDERS/*').test('GET /orders/42'), false);
    assert.equal(compileGlob('application/*+json', { ignoreCase: true }).test('application/vnd.api+JSON'), true);
  });

  test('agrees with a RegExp of the same glob on every short pattern and text over a small alphabet', () => {
    const alphabet = ['a', 'b', '*', '?'];
    const words = (length: number, letters: string[]): string[] =>
      length === 0 ? [''] : words(length - 1, letters).flatMap((word) => letters.map((letter) => word + letter));
    const patterns = [0, 1, 2, 3, 4].flatMap((n) => words(n, alphabet));
    const texts = [0, 1, 2, 3, 4, 5].flatMap((n) => words(n, ['a', 'b']));
    for (const pattern of patterns) {
      const regex = new RegExp(`^${pattern.replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
      for (const text of texts) assert.equal(matchGlob(pattern, text), regex.test(text), `${pattern} vs ${text}`);
    }
  });

  test('steps stay within a few passes over text + pattern on the patterns that made a RegExp hang', () => {
    for (const pattern of ['*a*a*b', '*a*a*a*b', '*a*a*a*a*a*a*a*a*b', `*${'a*'.repeat(200)}b`, `*${'?*'.repeat(16)}x`, `*${'a'.repeat(997)}b`]) {
      const steps: GlobSteps = { count: 0 };
      assert.equal(matchGlob(pattern, LONG_NAME, steps), false);
      const bound = 4 * (LONG_NAME.length + pattern.length);
      assert.ok(steps.count <= bound, `${pattern.slice(0, 20)}: ${steps.count} steps > ${bound}`);
    }
    // A few stars cost a few passes over the text, not a power of it.
    const steps: GlobSteps = { count: 0 };
    matchGlob('*a*a*a*b', LONG_NAME, steps);
    assert.ok(steps.count <= 5 * LONG_NAME.length, `${steps.count} steps`);
  });
});

describe('glob matching is linear in text + pattern', () => {
  // A name glob from an agent is run over every capture's name: 200 names of 15,000 characters.
  const names = ['a'.repeat(15_000), `${'a'.repeat(14_999)}b`, 'ab'.repeat(7_500), `${'a'.repeat(996)}c`.repeat(15).padEnd(15_000, 'a')];
  const patterns = [
    `*${'a'.repeat(997)}b`,
    `${'a'.repeat(997)}*b`,
    `*${'a'.repeat(500)}*${'a'.repeat(497)}b`,
    `*${'ab'.repeat(499)}c`,
    `*a?${'a'.repeat(995)}b*`,
    `*${'a?'.repeat(16)}${'a'.repeat(900)}b`,
  ];
  for (const pattern of patterns) {
    test(`${JSON.stringify(pattern.slice(0, 12))}… (${pattern.length} characters) against 15,000-character names`, () => {
      const glob = compileGlob(pattern);
      for (const name of names) {
        const steps: GlobSteps = { count: 0 };
        const regex = new RegExp(`^${pattern.replace(/\*/g, '[^]*').replace(/\?/g, '[^]')}$`);
        assert.equal(glob.test(name, steps), regex.test(name), `${pattern.slice(0, 12)} vs ${name.slice(-12)}`);
        const bound = 20 * (name.length + pattern.length);
        assert.ok(steps.count <= bound, `${steps.count} steps > ${bound}`);
      }
    });
  }

  test('a glob with more than 16 `?` is refused with one line saying so', () => {
    assert.throws(
      () => compileGlob('?'.repeat(17)),
      (error: Error) => /at most 16 `\?`/.test(error.message) && !error.message.includes('\n'),
    );
    assert.equal(compileGlob('?'.repeat(16)).test('x'.repeat(16)), true);
  });
});

describe('where contains: linear in the text', () => {
  test('finds or misses in at most 2 × text + needle steps, however text and needle overlap', () => {
    const text = 'a'.repeat(100_000);
    for (const needle of ['a'.repeat(999) + 'b', 'ab'.repeat(400), 'b', 'a'.repeat(500)]) {
      const steps = { count: 0 };
      assert.equal(findText(text, needle, steps), !needle.includes('b'));
      assert.ok(steps.count <= 2 * text.length + needle.length, `${steps.count} steps`);
    }
    assert.equal(findText('xxabcabd', 'abcabd'), true);
    assert.equal(findText('abcab', 'abcabd'), false);
    assert.equal(findText('anything', ''), true);
  });
});

describe('query inputs are bounded, and errors name them without echoing them', () => {
  test('a 100,000-character input is refused with a short error naming it', () => {
    const long = 'x'.repeat(100_000);
    for (const [input, name] of [
      [{ name: long }, 'name'],
      [{ where: [{ field: 'url', op: 'contains', value: long }] }, 'where[0].value'],
      [{ fields: ['url', long] }, 'fields[1]'],
      [{ has: Array.from({ length: 101 }, () => 'http') }, 'has'],
    ] as const) {
      assert.throws(
        () => checkInputSizes(input),
        (error: Error) => error instanceof QueryError && error.message.startsWith(name) && error.message.length < 200,
      );
    }
    assert.match(shownInput(long), /^"x{60}"… \(100000 characters\)$/);
    assert.throws(
      () => parseWhere(`url contains ${long}`),
      (error: Error) => error.message.length < 200 && /--where is too long: 100013 characters/.test(error.message),
    );
  });

  test('--where parses in linear time whatever the spacing', () => {
    assert.deepEqual(parseWhere('  url contains   /api  '), { field: 'url', op: 'contains', value: '/api' });
    assert.deepEqual(parseWhere('status>=500'), { field: 'status', op: '>=', value: '500' });
    assert.deepEqual(parseWhere('note = a\nb'), { field: 'note', op: '=', value: 'a\nb' });
    // Was a lazy value between two runs of spaces: quadratic backtracking on a run of spaces.
    assert.deepEqual(parseWhere(`url = ${' '.repeat(900)}x`), { field: 'url', op: '=', value: 'x' });
  });
});
