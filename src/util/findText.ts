/**
 * Whether `needle` occurs in `text`, in at most 2 × text + needle steps whatever both hold (Knuth, Morris
 * and Pratt, 1977): a `contains` filter is run over every row and every body an agent reads across
 * captures, with a needle the agent wrote, so its cost must not depend on how the two happen to overlap.
 */
export function findText(text: string, needle: string, steps?: { count: number }): boolean {
  return textFinder(needle)(text, steps);
}

/** The search for one needle, its table made once (a filter runs it on every row). */
export function textFinder(needle: string): (text: string, steps?: { count: number }) => boolean {
  const fallback = failureTable(needle);
  return (text, steps) => {
    if (needle.length === 0) return true;
    if (needle.length > text.length) return false;
    return search(text, needle, fallback, steps);
  };
}

function search(text: string, needle: string, fallback: Uint32Array, steps?: { count: number }): boolean {
  let matched = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    while (matched > 0 && char !== needle.charCodeAt(matched)) {
      if (steps) steps.count++;
      matched = fallback[matched - 1]!;
    }
    if (steps) steps.count++;
    if (char === needle.charCodeAt(matched)) matched++;
    if (matched === needle.length) return true;
  }
  return false;
}

/** For each prefix of the needle, the length of its longest proper prefix that is also its suffix. */
function failureTable(needle: string): Uint32Array {
  const table = new Uint32Array(needle.length);
  let length = 0;
  for (let i = 1; i < needle.length; i++) {
    while (length > 0 && needle.charCodeAt(i) !== needle.charCodeAt(length)) length = table[length - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(length)) length++;
    table[i] = length;
  }
  return table;
}
