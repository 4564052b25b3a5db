/**
 * Row indexes grouped by a key, in one pass: each group in the order given, groups in the order of their first
 * member. A row whose key is null belongs to no group (the rules' shared first step: calls of one request, of one
 * call site and endpoint).
 */
export function groupCalls(order: readonly number[], keyOf: (index: number) => string | null): number[][] {
  const groups = new Map<string, number[]>();
  for (const index of order) {
    const key = keyOf(index);
    if (key === null) continue;
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  }
  return [...groups.values()];
}
