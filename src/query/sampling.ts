import type { IndexRow, SamplingMeta } from '../capture/types';

/** Sampling as the stored captures report it, or undefined when none was sampled. Pure. */
export function samplingOf(index: IndexRow[]): SamplingMeta | undefined {
  const sampled = index.filter((row) => row.sampling);
  if (sampled.length === 0) return undefined;
  const { rate, max_per_second } = sampled[0]!.sampling!;
  return { rate, max_per_second, skipped: sampled.reduce((sum, row) => sum + (row.sampling?.skipped ?? 0), 0) };
}

/** The sentence agents and people read: sampling is in effect, and how much it left out. */
export function samplingNote(sampling: SamplingMeta): string {
  const ceiling = sampling.max_per_second !== null ? `, at most ${sampling.max_per_second} per second` : '';
  return `Sampling is in effect (rate ${sampling.rate}${ceiling}): ${sampling.skipped} request(s), job(s) or command(s) were not recorded besides the stored captures.`;
}
