import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * Why the capture folder must not be written, or null when it is safe: its real path (links resolved, for the
 * part that exists) must lie inside `<real root>/.probe`. A repository can commit `.probe` or
 * `.probe/captures` as a symbolic link to any folder; config validation only compares the paths as written.
 * A link that stays inside `<root>/.probe` is allowed. Faults other than a missing folder are not a verdict
 * (the write itself will report them).
 */
export function folderOutside(folder: string, probeDir: string): string | null {
  let expected: string;
  try {
    expected = path.join(realpathSync(path.dirname(probeDir)), path.basename(probeDir));
  } catch {
    return null;
  }
  let existing = folder;
  const rest: string[] = [];
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException)?.code !== 'ENOENT') return null;
      const parent = path.dirname(existing);
      if (parent === existing) return null;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
  let real: string;
  try {
    real = path.join(realpathSync(existing), ...rest);
  } catch {
    // A dangling link: it leads somewhere that does not exist yet, which mkdir would create.
    return `${existing} is a link that cannot be resolved`;
  }
  if (real === expected || real.startsWith(expected + path.sep)) return null;
  return `${folder} leads to ${real} through a symbolic link, outside ${expected}`;
}
