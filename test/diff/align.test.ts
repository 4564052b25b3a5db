import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignSequences, MAX_EDITS } from '../../src/diff/alignSequences';

/** The LCS length by the textbook O(N·M) table: the oracle the linear-space alignment must equal. */
function lcsLength(a: string[], b: string[]): number {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) table[i]![j] = a[i - 1] === b[j - 1] ? table[i - 1]![j - 1]! + 1 : Math.max(table[i - 1]![j]!, table[i]![j - 1]!);
  return table[a.length]![b.length]!;
}

function check(a: string[], b: string[]): void {
  const pairs = alignSequences(a, b);
  for (let k = 0; k < pairs.length; k++) {
    const [i, j] = pairs[k]!;
    assert.equal(a[i], b[j], 'a pair matches equal keys');
    if (k > 0) assert.ok(i > pairs[k - 1]![0] && j > pairs[k - 1]![1], 'pairs keep both orders');
  }
  assert.equal(pairs.length, lcsLength(a, b), `${a.join('')} / ${b.join('')}`);
}

test('aligns as the longest common subsequence (checked against the table algorithm on random sequences)', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 400; round++) {
    const alphabet = 1 + Math.floor(random() * 5);
    const make = () => Array.from({ length: Math.floor(random() * 30) }, () => String.fromCharCode(97 + Math.floor(random() * alphabet)));
    check(make(), make());
  }
  check([], []);
  check(['a'], []);
  check([], ['b']);
});

test('a call added in the middle leaves the rest aligned', () => {
  const before = ['GET /a', 'GET /b', 'GET /c'];
  const after = ['GET /a', 'POST /x', 'GET /b', 'GET /c'];
  assert.deepEqual(alignSequences(before, after), [
    [0, 0],
    [1, 2],
    [2, 3],
  ]);
});

test('bounded: two unrelated sequences far past the edit bound are answered (nothing in common), without a deep stack', () => {
  const size = MAX_EDITS * 3;
  const a = Array.from({ length: size }, (_, i) => `a${i}`);
  const b = Array.from({ length: size }, (_, i) => `b${i}`);
  assert.deepEqual(alignSequences(a, b), []);
  const same = Array.from({ length: 50_000 }, (_, i) => `k${i % 7}`);
  assert.equal(alignSequences(same, same).length, 50_000);
});
