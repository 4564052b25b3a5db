import fs from 'node:fs';
import path from 'node:path';
import type { FrameRule } from './FrameRule';
import { notKept } from '../keptVerdicts';

/**
 * SvelteKit's own runtime as `vite build` bundles it into the app's output, `<outDir>/output/server/index.js` and
 * `internal.js` (the `fetch` a `load` function is handed lives there), when no map leads further: SvelteKit builds the
 * server without maps unless `build.sourcemap` is on (then nodeModulesRule sees them map into
 * `@sveltejs/kit`). Told by the manifest SvelteKit writes beside them. The app's modules are in `entries/` and
 * `chunks/` of the same folder, and stay the app's.
 */
const RUNTIME_FILES = new Set(['index.js', 'internal.js']);
const known = new Map<string, boolean>();

export const svelteKitOutputRule: FrameRule = {
  name: "SvelteKit's runtime in its server output, without maps",
  judge(frame) {
    // Where the maps end: adapter-node's bundle maps into this output (one link), which has none of its own. The
    // substring tests first: no string made for a frame asked at each call.
    if ((!frame.file.includes('index.js') && !frame.file.includes('internal.js')) || !RUNTIME_FILES.has(path.basename(frame.file))) return undefined;
    const dir = path.dirname(frame.file);
    let runtime = known.get(dir);
    if (runtime === undefined) {
      runtime = path.basename(dir) === 'server' && path.basename(path.dirname(dir)) === 'output' && fs.existsSync(path.join(dir, 'manifest-full.js'));
      if (known.size < 100) known.set(dir, runtime);
      else notKept();
    }
    return runtime ? 'library' : undefined;
  },
};
