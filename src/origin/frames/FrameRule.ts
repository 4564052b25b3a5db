/**
 * The contract of frame rules: which frames of a call's stack are the app's. A frame is first followed through
 * every source map it has (mapChain); then the rules of frameRules.ts are asked in order, and the first with an
 * opinion decides. A frame no rule claims is the app's, as it is.
 */

/** A frame after its maps are followed. */
export interface FrameFacts {
  /** The script V8 ran (a bundle, a build output file, a transformed module). */
  script: string;
  /** Where the maps lead (the script itself when it has none), absolute, and the line there (1-based). */
  file: string;
  line: number;
  column: number;
  /** Some map translated the position (file/line are the original's). */
  mapped: boolean;
  /** The script has a map, whether or not it covers this position. */
  hasMap: boolean;
  /** The app root origins are shown against. */
  root: string;
}

/**
 * What a rule says of a frame: `library` (not the app's: skipped like node_modules, the next frame up is asked),
 * `app` (the app's, as it is), the app's code at another position (a bundle's call found in its source), or
 * undefined (no opinion: the next rule decides).
 */
export type FrameVerdict = 'library' | 'app' | { file: string; line: number } | undefined;

export interface FrameRule {
  /** What the rule knows, for docs and diagnostics. */
  name: string;
  /**
   * The verdict is kept per frame position (origin.ts): a rule that answers from something it did not keep (its
   * cache full, a read that failed) calls `notKept()` of `../keptVerdicts`, so the position is asked again next time.
   */
  judge(frame: FrameFacts): FrameVerdict;
}
