import path from 'node:path';
import type { FoundMap, MapSource, SourceMapLike } from './MapSource';
import { mapFromUrl, scriptText } from './readMap';

/**
 * webpack's `eval-source-map` modules (`next dev` with webpack): each module is an `eval` whose script is named
 * `webpack-internal:///(layer)/./app/x.ts` and carries its map inline; V8 does not hand the eval'd text to a
 * stack frame, so the map is found in the bundle files Node loaded (require.cache) by that name.
 */
export const WEBPACK_INTERNAL = 'webpack-internal:///';

/** Bundle files searched for eval modules, as the module object Node loaded (a reloaded bundle is a new one). */
const searched = new Map<string, NodeModule>();
/** App eval modules found (node_modules' are skipped anyway): the bundle that holds each, and its map. */
interface EvalModule {
  file: string;
  module: NodeModule;
  base64: string;
  map?: SourceMapLike | null;
}

/**
 * Bundles holding eval modules compiled since the last lookup, with the code that ran. `next dev` deletes every
 * server bundle from require.cache after each compilation of any route (NextJsRequireCacheHotReloader, on
 * `afterEmit`) and writes changed bundles anew: a lookup soon after a call, while another route compiles, found
 * the bundle neither in require.cache nor as it ran on disk. Indexed at the next lookup.
 */
const compiled: { file: string; module: NodeModule; code: string }[] = [];
/**
 * Bundles kept for the next lookup at most, one version each (a bundle compiled again replaces its older code):
 * past it the oldest is left to the require.cache search.
 */
const MAX_COMPILED = 16;

/** Notes a bundle Node compiles (`Module#_compile`: the module, its code) when it holds webpack eval modules. Cheap: one search of the code. */
export function noteCompiledBundle(file: string, module: unknown, code: string): void {
  if (typeof code !== 'string' || !file.endsWith('.js') || typeof module !== 'object' || module === null || !code.includes(WEBPACK_INTERNAL)) return;
  const older = compiled.findIndex((bundle) => bundle.file === file);
  if (older >= 0) compiled.splice(older, 1);
  else if (compiled.length >= MAX_COMPILED) compiled.shift();
  compiled.push({ file, module: module as NodeModule, code });
}
const evalModules = new Map<string, EvalModule>();
/** `eval("…//# sourceMappingURL=data:…;base64,XXX\n//# sourceURL=webpack-internal:///NAME\n")` as it is written in the bundle. */
const EVAL_MODULE = /sourceMappingURL=data:application\/json;charset=utf-8;base64,([A-Za-z0-9+/=]+)\\n\/\/# sourceURL=(webpack-internal:\/\/\/[^"\\]*)/g;

export const webpackEval: MapSource = {
  name: 'webpack eval module',
  kind: 'evaluated',
  mapFor(script: string): FoundMap | null {
    if (!script.startsWith(WEBPACK_INTERNAL)) return null;
    // What was compiled since the last lookup first, in order (a newer bundle's modules replace an older one's).
    for (const bundle of compiled.splice(0)) {
      searched.set(bundle.file, bundle.module);
      indexEvalModules(bundle.file, bundle.module, bundle.code);
    }
    let found = current(evalModules.get(script));
    if (!found) {
      for (const [file, module] of Object.entries(require.cache)) {
        if (!module || searched.get(file) === module || file.includes(`${path.sep}node_modules${path.sep}`) || !file.endsWith('.js')) continue;
        searched.set(file, module);
        indexEvalModules(file, module, scriptText(file));
      }
      found = current(evalModules.get(script));
    }
    if (!found) return null;
    found.map ??= mapFromUrl(`data:application/json;base64,${found.base64}`, script);
    // `next dev` reloads a bundle after an edit under the same module names, with new maps: asked each time.
    return found.map ? { map: found.map, reloads: true } : null;
  },
};

/**
 * The module as long as its bundle is the newest loaded: still in require.cache, or taken out of it and not loaded
 * again (`next dev` empties require.cache of its bundles after each compilation; they are loaded again when next asked).
 */
function current(found: EvalModule | undefined): EvalModule | undefined {
  if (!found) return undefined;
  const loaded = require.cache[found.file];
  return !loaded || loaded === found.module ? found : undefined;
}

function indexEvalModules(file: string, module: NodeModule, text: string | null): void {
  if (text === null || !text.includes(WEBPACK_INTERNAL)) return;
  for (const match of text.matchAll(EVAL_MODULE)) {
    const name = match[2]!;
    if (!name.includes('/node_modules/')) evalModules.set(name, { file, module, base64: match[1]! });
  }
}
