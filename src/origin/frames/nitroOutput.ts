import fs from 'node:fs';
import path from 'node:path';
import type { FrameRule } from './FrameRule';

/**
 * Nitro's own runtime (h3, ofetch, the `$fetch` it hands to app code) as `nitro build` bundles it into
 * `<output>/server/chunks/nitro/`, when built with `sourceMap: false` (with Nitro's default maps,
 * thirdPartyMapRule tells it). Told by the `nitro.json` Nitro writes at the output's top. The app's routes are
 * in `chunks/routes/` and stay the app's. Nuxt's server output is Nitro's.
 */
const known = new Map<string, boolean>();

export const nitroOutputRule: FrameRule = {
  name: "Nitro's runtime in its server output, without maps",
  judge(frame) {
    const dir = path.dirname(frame.file);
    if (path.basename(dir) !== 'nitro') return undefined;
    let runtime = known.get(dir);
    if (runtime === undefined) {
      const chunks = path.dirname(dir);
      const output = path.dirname(path.dirname(chunks));
      runtime = path.basename(chunks) === 'chunks' && fs.existsSync(path.join(output, 'nitro.json'));
      if (known.size < 100) known.set(dir, runtime);
    }
    return runtime ? 'library' : undefined;
  },
};
