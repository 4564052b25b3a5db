import type { Mask } from './Mask';
import { MASKED } from './FullMask';

/** Keeps the last 4 characters so a developer can tell two keys apart; short values are masked whole. */
export class PartialMask implements Mask {
  mask(value: string): string {
    if (value.length <= 8) return MASKED;
    return MASKED + value.slice(-4);
  }
}
