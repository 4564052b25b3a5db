/**
 * Nearest-rank percentile of numbers sorted ascending (`p` from 0 to 1): always a value that was measured,
 * never an interpolation, so p95 of 3 calls is the slowest call. Null for no values.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}
