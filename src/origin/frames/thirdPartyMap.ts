import path from 'node:path';
import { scriptMap } from '../mapChain';
import type { FrameRule } from './FrameRule';
import { notKept } from '../keptVerdicts';

interface Payload {
  sources?: unknown;
  ignoreList?: unknown;
  x_google_ignoreList?: unknown;
}

const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const NODE_MODULES_URL = '/node_modules/';
const known = new Map<string, boolean>();
const MAX_KNOWN = 1000;

/**
 * A bundled chunk whose map has no entry for the frame's position but says all its code is a third party's:
 * every source is in node_modules or on the map's `ignoreList` (`x_google_ignoreList`, which bundlers write for
 * library code so debuggers skip it). Nitro's runtime chunk (`.output/server/chunks/nitro/nitro.mjs`: h3, ofetch,
 * the `$fetch` it hands to app code) is written so, its mappings left empty.
 */
export const thirdPartyMapRule: FrameRule = {
  name: "a chunk its map says is all a third party's code, when the map has no entry there",
  judge(frame) {
    if (frame.mapped || !frame.hasMap) return undefined;
    let library = known.get(frame.script);
    if (library === undefined) {
      library = allThirdParty(frame.script);
      if (known.size < MAX_KNOWN) known.set(frame.script, library);
      else notKept();
    }
    return library ? 'library' : undefined;
  },
};

function allThirdParty(script: string): boolean {
  const payload = (scriptMap(script) as { payload?: Payload } | null)?.payload;
  const sources = payload?.sources;
  if (!Array.isArray(sources) || sources.length === 0) return false;
  const listed = payload?.ignoreList ?? payload?.x_google_ignoreList;
  const ignored = new Set(Array.isArray(listed) ? listed : []);
  return sources.every(
    (source, index) => ignored.has(index) || (typeof source === 'string' && (source.includes(NODE_MODULES_URL) || source.includes(NODE_MODULES))),
  );
}
