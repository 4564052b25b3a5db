import fs from 'node:fs';
import path from 'node:path';
import type { FrameRule } from './FrameRule';
import { notKept } from '../keptVerdicts';
import { MAX_CODE_BYTES, readSafeText } from '../../util/safeRead';

/**
 * Nitro's own runtime (h3, ofetch, the `$fetch` it hands to app code) as Nitro bundles it without maps (with
 * Nitro's default maps, thirdPartyMapRule tells it):
 * - `nitro build` with `sourceMap: false`: the runtime is `<output>/server/chunks/nitro/`, told by the `nitro.json`
 *   Nitro writes at the output's top. The app's routes are in `chunks/routes/` and stay the app's.
 * - the dev server's build (`nuxi dev`, `nitro dev`) with maps turned off (Nuxt's `sourcemap.server: false`): one
 *   file, `<build dir>/dev/index.mjs`, holds the runtime and the app's server routes together. With no map, no line
 *   of it can be told the app's from the runtime's, so none is taken: a call made through Nitro's `$fetch` is
 *   found at the app frame that called into it (a page's, whose module runner keeps its own map), else has no
 *   origin. Told by the handler table Nitro writes into it.
 * Nuxt's server output is Nitro's.
 */
const known = new Map<string, boolean>();

export const nitroOutputRule: FrameRule = {
  name: "Nitro's runtime in its server output, without maps",
  judge(frame) {
    // Neither folder nor file name in the path: no need to take it apart (no string made for a frame asked at each call).
    if (!frame.file.includes('nitro') && !frame.file.includes('index.mjs')) return undefined;
    const dir = path.dirname(frame.file);
    const base = path.basename(dir);
    if (base === 'nitro') return builtRuntime(dir) ? 'library' : undefined;
    if (base === 'dev' && !frame.hasMap && path.basename(frame.file) === 'index.mjs') return devBuild(frame.file) ? 'library' : undefined;
    return undefined;
  },
};

function builtRuntime(dir: string): boolean {
  let runtime = known.get(dir);
  if (runtime === undefined) {
    const chunks = path.dirname(dir);
    const output = path.dirname(path.dirname(chunks));
    runtime = path.basename(chunks) === 'chunks' && fs.existsSync(path.join(output, 'nitro.json'));
    if (known.size < 100) known.set(dir, runtime);
    else notKept();
  }
  return runtime;
}

/** Whether a dev server's `dev/index.mjs` is Nitro's: its handler table (`const handlers = [`), as Nitro writes it. */
function devBuild(file: string): boolean {
  let nitro = known.get(file);
  if (nitro === undefined) {
    try {
      nitro = readSafeText(file, { maxBytes: MAX_CODE_BYTES, follow: true }).includes('\nconst handlers = [');
    } catch {
      nitro = false;
    }
    if (known.size < 100) known.set(file, nitro);
    else notKept();
  }
  return nitro;
}
