import type { Mask } from './Mask';

export const MASKED = '********';

/** Replaces the whole value. */
export class FullMask implements Mask {
  mask(_value: string): string {
    return MASKED;
  }
}
