/**
 * The longest common subsequence of two key sequences, as matched index pairs in order: Myers' O((N+M)·D)
 * diff in linear space (the middle-snake bisection, as diff-match-patch's `diff_bisect`), after the common
 * head and tail are taken off. Bounded: a part whose edit distance passes MAX_EDITS is given no common
 * keys (all of it removed and added) instead of being searched further, so two unrelated captures of
 * 100,000 calls cost a bounded time.
 */
export const MAX_EDITS = 4000;

export type Pair = readonly [before: number, after: number];

export function alignSequences(before: readonly string[], after: readonly string[]): Pair[] {
  // Keys as small integers: the inner loop compares numbers.
  const ids = new Map<string, number>();
  const idOf = (key: string) => {
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  };
  const a = Int32Array.from(before, idOf);
  const b = Int32Array.from(after, idOf);
  const pairs: Pair[] = [];
  // An explicit stack of parts, not recursion: a long alignment never runs out of call stack.
  const stack: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  const found: Pair[][] = [];
  while (stack.length) {
    let [aLo, aHi, bLo, bHi] = stack.pop()!;
    const part: Pair[] = [];
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) part.push([aLo++, bLo++]);
    const tail: Pair[] = [];
    while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) tail.push([--aHi, --bHi]);
    found.push(part, tail.reverse());
    if (aLo === aHi || bLo === bHi) continue;
    const split = middleSnake(a, aLo, aHi, b, bLo, bHi);
    if (!split) continue;
    const [x, y] = split;
    // A split at a corner would give the same part back: treat the part as having nothing in common.
    if ((x === aLo && y === bLo) || (x === aHi && y === bHi)) continue;
    stack.push([x, aHi, y, bHi], [aLo, x, bLo, y]);
  }
  for (const part of found) pairs.push(...part);
  return pairs.sort((p, q) => p[0] - q[0]);
}

/** Where the middle snake of a[aLo..aHi) and b[bLo..bHi) starts, in absolute indexes; null past MAX_EDITS or without one. */
function middleSnake(a: Int32Array, aLo: number, aHi: number, b: Int32Array, bLo: number, bHi: number): [number, number] | null {
  const n1 = aHi - aLo;
  const n2 = bHi - bLo;
  const maxD = Math.min(Math.ceil((n1 + n2) / 2), MAX_EDITS);
  const offset = maxD;
  const length = 2 * maxD + 2;
  const v1 = new Int32Array(length).fill(-1);
  const v2 = new Int32Array(length).fill(-1);
  v1[offset + 1] = 0;
  v2[offset + 1] = 0;
  const delta = n1 - n2;
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = offset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1Offset - 1]! < v1[k1Offset + 1]!) ? v1[k1Offset + 1]! : v1[k1Offset - 1]! + 1;
      let y1 = x1 - k1;
      while (x1 < n1 && y1 < n2 && a[aLo + x1] === b[bLo + y1]) {
        x1++;
        y1++;
      }
      v1[k1Offset] = x1;
      if (x1 > n1) k1end += 2;
      else if (y1 > n2) k1start += 2;
      else if (front) {
        const k2Offset = offset + delta - k1;
        if (k2Offset >= 0 && k2Offset < length && v1[k1Offset] !== -1 && v2[k2Offset] !== -1) {
          if (x1 >= n1 - v2[k2Offset]!) return [aLo + x1, bLo + y1];
        }
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = offset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2Offset - 1]! < v2[k2Offset + 1]!) ? v2[k2Offset + 1]! : v2[k2Offset - 1]! + 1;
      let y2 = x2 - k2;
      while (x2 < n1 && y2 < n2 && a[aHi - 1 - x2] === b[bHi - 1 - y2]) {
        x2++;
        y2++;
      }
      v2[k2Offset] = x2;
      if (x2 > n1) k2end += 2;
      else if (y2 > n2) k2start += 2;
      else if (!front) {
        const k1Offset = offset + delta - k2;
        if (k1Offset >= 0 && k1Offset < length && v1[k1Offset] !== -1) {
          const x1 = v1[k1Offset]!;
          const y1 = offset + x1 - k1Offset;
          if (x1 >= n1 - x2) return [aLo + x1, bLo + y1];
        }
      }
    }
  }
  return null;
}
