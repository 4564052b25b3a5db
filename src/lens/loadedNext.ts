import fs from 'node:fs';
import path from 'node:path';
import { MAX_MANIFEST_BYTES, readSafeText } from '../util/safeRead';

/** Next.js's server module, as require's cache names it (the same file nextRoutes patches). */
const BASE_SERVER = ['', 'node_modules', 'next', 'dist', 'server', 'base-server.js'].join(path.sep);

/**
 * The major version of the Next.js whose server this process has loaded, or null when it has loaded none. Read
 * from require's cache (Next's server is CommonJS) and the package.json beside it: no module is loaded for it, and
 * an app that has Next.js installed without running its server (a script in a monorepo) is not taken for one.
 * One pass over require's cache: called a few times at most (see watchNextFetch).
 */
export function loadedNextMajor(): number | null {
  for (const [file, module] of Object.entries(require.cache)) {
    if (!file.endsWith(BASE_SERVER) || !module) continue;
    try {
      const manifest = path.join(path.dirname(file), '..', '..', 'package.json');
      const version = (JSON.parse(readSafeText(manifest, { maxBytes: MAX_MANIFEST_BYTES, follow: true })) as { version?: unknown }).version;
      const major = typeof version === 'string' ? Number(version.split('.')[0]) : NaN;
      if (Number.isInteger(major)) return major;
    } catch {
      // no readable package.json beside it: not taken for a Next.js
    }
  }
  return null;
}
