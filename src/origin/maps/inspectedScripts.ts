import type { Session } from 'node:inspector';
import type { SourceMapLike } from './MapSource';
import { mapFromUrl } from './readMap';
import { verdictsStale } from '../keptVerdicts';

/**
 * The maps of code evaluated with no file of its own, under a `//# sourceURL=` that names one: `eval`, `new
 * Function`, `new AsyncFunction`. Module runners evaluate the code they transformed so (Vite's ModuleRunner and
 * `ssrLoadModule`, whose ESModulesEvaluator runs each module as `new AsyncFunction(…)` with its map inline: SvelteKit
 * and other Vite dev servers), and no compile point Node exposes sees that code. V8 does: the inspector lists every
 * script it holds with the `sourceMappingURL` it read from the code, and the frame's script hash
 * (`CallSite#getScriptHash`) picks the one that ran (a module evaluated again after an edit is another script under
 * the same name).
 *
 * Asked lazily, off the app's path, for the first frame of such a script: one listing (Debugger.enable, read, then
 * Debugger.disable, in a session of Probe's own: a debugger the developer attached keeps its session) answers every
 * script asked in the same turn; each script's map is read once. A script the listing does not have keeps no map
 * (its frames then give no line: never one of code that is not the file's).
 */

/** Scripts whose map (or none) is kept; the oldest is dropped past it. */
const MAX_KNOWN = 1000;
/** Listings at most per process: each walks every script V8 holds, which a long dev session with many edits would repeat. */
const MAX_LISTINGS = 500;

/** Script hash (or name, where V8 gives no hash) → its map, or null. */
const known = new Map<string, SourceMapLike | null>();
/** The current turn's listing: hash or name → sourceMappingURL, of evaluated scripts named after a file. Dropped on the next turn. */
let listing: Map<string, string> | null = null;
let listings = 0;

/**
 * The map of the evaluated script `name` (its sourceURL) whose hash is `hash` ('' when V8 gives none: the newest
 * script of that name), or null when it has none or cannot be known. Never throws.
 */
export function evaluatedScriptMap(name: string, hash: string): SourceMapLike | null {
  const key = hash || name;
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  const url = listScripts()?.get(key);
  const map = url ? mapFromUrl(url, name) : null;
  if (known.size >= MAX_KNOWN) {
    known.delete(known.keys().next().value!);
    verdictsStale();
  }
  known.set(key, map);
  return map;
}

interface ScriptParsed {
  params: { url?: string; hash?: string; sourceMapURL?: string; hasSourceURL?: boolean; scriptId?: string };
}

const isPath = (name: string): boolean => name.startsWith('/') || name.startsWith('file:') || /^[A-Za-z]:[\\/]/.test(name);

/** The evaluated scripts V8 holds now, with a map and named after a file (listed once per turn), or null. */
function listScripts(): Map<string, string> | null {
  if (listing) return listing;
  if (listings >= MAX_LISTINGS) return null;
  listings++;
  const found = new Map<string, string>();
  let session: Session | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only where a frame needs it (a build of Node without the inspector throws here)
    const inspector = require('node:inspector') as typeof import('node:inspector');
    session = new inspector.Session();
    session.connect();
    session.on('Debugger.scriptParsed', (message: ScriptParsed) => {
      const { url, hash, sourceMapURL, hasSourceURL } = message.params;
      if (!hasSourceURL || !url || !sourceMapURL || !isPath(url)) return;
      // Later scripts come later: the newest of a name is the one a hashless lookup gets.
      found.set(url, sourceMapURL);
      if (hash) found.set(hash, sourceMapURL);
    });
    // The session is the main thread's (or this worker's) own: post answers and its events arrive synchronously.
    session.post('Debugger.enable', {}, () => undefined);
    session.post('Debugger.disable', () => undefined);
  } catch {
    // no inspector in this build of Node, or it refused: nothing is listed
  } finally {
    try {
      session?.disconnect();
    } catch {
      // already gone
    }
  }
  listing = found;
  setImmediate(() => (listing = null)).unref?.();
  return found;
}
