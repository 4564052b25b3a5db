import type { Glob } from '../util/glob';

/**
 * Whether a capture name matches one of the `except` patterns. The user's own RegExps are used as given, so
 * a global or sticky one carries `lastIndex` from its last test: reset it, or every other test of the same
 * name would miss.
 */
export function isExcepted(patterns: ReadonlyArray<RegExp | Glob>, name: string): boolean {
  return patterns.some((pattern) => {
    if (pattern instanceof RegExp) pattern.lastIndex = 0;
    return pattern.test(name);
  });
}
