import { MASKED } from './FullMask';

/** `text` with each [from, to) stretch (in order, not overlapping) replaced by the censor. */
export function maskHits(text: string, hits: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let copied = 0;
  for (const [from, to] of hits) {
    out += text.slice(copied, from) + MASKED;
    copied = to;
  }
  return out + text.slice(copied);
}
