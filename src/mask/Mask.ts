/** Anything with `mask(value)`: the built-in masks, or a user's own. */
export interface Mask {
  mask(value: string): string;
}

/** How a config names a mask: a class, an instance, or the name of a built-in class. */
export type MaskSpec = Mask | (new () => Mask) | 'FullMask' | 'PartialMask' | string;
