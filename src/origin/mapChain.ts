import path from 'node:path';
import { MAP_LATER, type FoundMap, type MapSource, type SourceMapLike } from './maps/MapSource';
import { MAP_SOURCES } from './maps/mapSources';
import { dropScriptMap, noteScriptMap } from './maps/evaluatedScripts';
import { evaluatedScriptMap } from './maps/inspectedScripts';
import { originalPath } from './bundleMaps';
import { notKept, verdictsStale } from './keptVerdicts';

/**
 * Follows a position in a script through every source map to the first file that has none: a bundle → the
 * intermediate build it was made from → `src/`. Maps are read lazily, once per script (see MapSource's
 * `reloads`), the first time a frame needs them, off the app's path, and kept within `MAX_CACHED`.
 */

/** A position: 1-based line and column, as V8's call sites give them. */
export interface Position {
  file: string;
  line: number;
  column: number;
}

/** A position after the chain: `maps`, how many maps were followed (0: the script has none). */
export interface MappedPosition extends Position {
  maps: number;
}

/** What mapPosition says of a position in a bundler's own runtime code (webpack/runtime, Turbopack's). */
export const BUNDLER_RUNTIME = 'bundler-runtime';
/** What mapPosition says when the script has a map that does not cover the position: the line cannot be translated. */
export const NO_ENTRY = 'no-entry';

/**
 * What mapPosition says of a script V8 cannot have run as it is on disk (TypeScript, JSX) when no map of the code
 * that ran is found: its line is the transformed code's, under the source's name, so no line can be trusted.
 */
export const UNTRUSTED = 'untrusted';

/**
 * Files that only run transformed (but under Node's own type stripping, which keeps every position). A bundler's
 * eval module names (`webpack-internal:///…/x.ts`) are not files: see TRANSFORMED_EVAL_MODULE.
 */
const TRANSFORMED_ONLY = /^(?:\/|file:|[A-Za-z]:[\\/]).*\.(?:[mc]?ts|tsx|jsx)$/;

/**
 * A webpack eval module made from a TypeScript or JSX source (`webpack-internal:///(rsc)/./app/x.ts`): its code is the
 * loader's output, so with no map its lines are not the source's.
 */
const TRANSFORMED_EVAL_MODULE = /^webpack-internal:\/\/\/.*\.(?:[mc]?ts|tsx|jsx)(?:\?[^/]*)?$/;

/** The extensions of files a JavaScript engine runs as they are. */
const JAVASCRIPT = new Set(['', '.js', '.mjs', '.cjs']);

/** A script name that is a file (a path or a file URL), not a module name (`webpack-internal:///…`). */
const FILE_NAME = /^(?:\/|file:|[A-Za-z]:[\\/])/;

/** Links followed at most (a bundle of a build of a build…); a cycle ends earlier, at the first file seen twice. */
const MAX_LINKS = 8;
/** Scripts whose verdict (a map or none) is kept; the oldest is dropped past it (and read again if needed). */
const MAX_CACHED = 1000;

type Verdict = { map: SourceMapLike } | null;

/** Lookups of a script whose named map could not be read, before it is taken as having none (each reads the script's text). */
const MAX_LATER = 8;
const later = new Map<string, number>();

/** First frames' scripts (all sources) and chain links (file sources only): cached apart, as they ask different sources. */
const firstCache = new Map<string, Verdict>();
const linkCache = new Map<string, Verdict>();

/**
 * A frame's script evaluated from a string (`eval`, `new Function`) under a `//# sourceURL=` naming a file: `hash`,
 * V8's hash of the code that ran ('' when V8 gives none), tells it from another evaluation under the same name.
 */
export interface EvaluatedScript {
  hash: string;
}

/**
 * Where `file:line:column` (a frame's script name and position) comes from: the last file of its chain of maps, or
 * the position itself (`maps: 0`) when the script has none. `BUNDLER_RUNTIME` for a bundler's own runtime code,
 * `NO_ENTRY` when the script's map has no entry there, `UNTRUSTED` for a transformed script with no map (and for
 * `evaluated` code with none). `root`: the app root, against which webpack's and Turbopack's project-relative
 * source names resolve. Never throws.
 */
export function mapPosition(
  file: string,
  line: number,
  column: number,
  root: string,
  evaluated?: EvaluatedScript,
): MappedPosition | typeof BUNDLER_RUNTIME | typeof NO_ENTRY | typeof UNTRUSTED {
  let at: MappedPosition = { file, line, column, maps: 0 };
  const seen = new Set<string>();
  for (let link = 0; link < MAX_LINKS; link++) {
    seen.add(at.file);
    const map = link === 0 && evaluated ? evaluatedScriptMap(file, evaluated.hash) : mapOf(at.file, link === 0);
    // Code evaluated under a file's name (eval, new Function) is not that file's text: with no map, no line of it is the file's.
    if (!map && link === 0 && evaluated) return UNTRUSTED;
    if (!map && link === 0 && TRANSFORMED_EVAL_MODULE.test(file)) return UNTRUSTED;
    if (!map) return link === 0 && untrustedWithoutMap(file) ? UNTRUSTED : at;
    const next = follow(map, at, root);
    if (next === null) return link === 0 ? NO_ENTRY : at;
    if (next === BUNDLER_RUNTIME) return BUNDLER_RUNTIME;
    at = { ...next, maps: at.maps + 1 };
    // A file seen already ends the chain there: a transformer's map of a file names that same file (ts-node,
    // babel), whose text on disk is the source; a true cycle of maps stops as soon as it closes.
    if (seen.has(at.file)) return at;
  }
  return at;
}

/**
 * Notes the `sourceMappingURL` of code evaluated under a script name (a transformer's output, code a test
 * runner evaluated in a vm context). Nothing is read now; what was resolved for an earlier evaluation of the same
 * script with other code is dropped.
 */
export function noteEvaluatedScript(script: string, sourceMapUrl: string): void {
  if (evaluatedWithoutMap.delete(script)) verdictsStale();
  if (!noteScriptMap(script, sourceMapUrl)) return;
  // Frame verdicts kept rest on what was cached (none is kept that rests on a lookup that was not).
  if (firstCache.delete(script)) verdictsStale();
}

/**
 * Whether a script with no map cannot be the file's own text: TypeScript that Node did not strip itself (a hook or a
 * module runner transformed it), any other file that is not JavaScript.
 */
function untrustedWithoutMap(file: string): boolean {
  if (TRANSFORMED_ONLY.test(file)) return !nodeStripsTypes() || hookedWithoutMap.has(file) || evaluatedWithoutMap.has(file);
  // A file no engine runs as it is (`.vue`, `.svelte`, `.astro`: a compiler turns it into JavaScript first).
  return FILE_NAME.test(file) && !JAVASCRIPT.has(path.extname(file));
}

/** Scripts a module runner or test runner last evaluated through node:vm with no map (see noteEvaluatedWithoutMap). */
const evaluatedWithoutMap = new Set<string>();

/**
 * Notes code evaluated through node:vm under a script name with no map: a map noted for an earlier evaluation
 * under the same name (another module a runner names after the same file, as vite-node does a Nuxt page and its
 * `?macro=true` part) is not this code's, and is dropped (Node's own cache keeps it too: it is not asked); a
 * TypeScript file evaluated so is not Node's stripping.
 */
export function noteEvaluatedWithoutMap(script: string): void {
  if (dropScriptMap(script) && firstCache.delete(script)) verdictsStale();
  if (evaluatedWithoutMap.size < MAX_CACHED && !evaluatedWithoutMap.has(script)) {
    evaluatedWithoutMap.add(script);
    verdictsStale();
  }
}

/** Files a require hook compiled into code of other positions, with no map: untrusted even where Node strips types. */
const hookedWithoutMap = new Set<string>();

/**
 * Notes code compiled under a file's name with no map: when Node strips types itself, a file it compiled keeps
 * every position (types become blanks), but a require hook that ran first (a transpiler without maps) moved
 * them, and the file's line cannot be trusted. Only TypeScript/JSX files, only where Node strips types; one read
 * of the file, at load. Never throws.
 */
export function noteCompiledWithoutMap(script: string, code: string, readText: (file: string) => string): void {
  try {
    if (!TRANSFORMED_ONLY.test(script) || !nodeStripsTypes() || hookedWithoutMap.size >= MAX_CACHED) return;
    if (!keepsPositions(code, readText(script)) && !hookedWithoutMap.has(script)) {
      hookedWithoutMap.add(script);
      verdictsStale();
    }
  } catch {
    // an unreadable file: nothing is known of it
  }
}

/** Whether `code` is `source` with some characters blanked (what type stripping does): same length, only spaces where they differ. */
function keepsPositions(code: string, source: string): boolean {
  if (code.length !== source.length) return false;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c !== source.charCodeAt(i) && c !== 32 && c !== 9 && c !== 59) return false;
  }
  return true;
}

/**
 * Whether Node runs TypeScript itself (`--experimental-strip-types`, on by default from Node 23.6): it replaces
 * types with blanks, so a .ts file's positions are its own; `--experimental-transform-types` makes maps Node caches.
 */
function nodeStripsTypes(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

function mapOf(script: string, first: boolean): SourceMapLike | null {
  const cache = first ? firstCache : linkCache;
  const cached = cache.get(script);
  if (cached !== undefined) return cached?.map ?? null;
  let found = ask(script, first);
  if (found === MAP_LATER) {
    // Asked again at later frames while the named map cannot be read, then taken as none.
    const asked = (later.get(script) ?? 0) + 1;
    if (later.size >= MAX_CACHED && !later.has(script)) later.delete(later.keys().next().value!);
    later.set(script, asked);
    if (asked < MAX_LATER) {
      notKept();
      return null;
    }
    found = null;
  }
  later.delete(script);
  if (found?.reloads) {
    notKept();
    return found.map;
  }
  // A script that is not a file (a bundler's eval module name) may be found later (its bundle loaded or compiled
  // again): a miss is not kept. Its source keeps what it searched, so asking again is cheap.
  if (!found && !FILE_NAME.test(script)) {
    notKept();
    return null;
  }
  if (cache.size >= MAX_CACHED) {
    cache.delete(cache.keys().next().value!);
    verdictsStale();
  }
  cache.set(script, found ? { map: found.map } : null);
  return found?.map ?? null;
}

/** What the sources say: the first map found, else `MAP_LATER` when one names a map it cannot read now, else null. */
function ask(script: string, first: boolean): FoundMap | null | typeof MAP_LATER {
  let pending = false;
  // Code last evaluated with no map has none: Node's cache keeps the map of an earlier evaluation under the name.
  const evaluated = first && !evaluatedWithoutMap.has(script);
  for (const source of MAP_SOURCES) {
    if (!evaluated && source.kind !== 'file') continue;
    const found = askOne(source, script);
    if (found === MAP_LATER) pending = true;
    else if (found) return found;
  }
  return pending ? MAP_LATER : null;
}

function askOne(source: MapSource, script: string): FoundMap | null | typeof MAP_LATER {
  try {
    return source.mapFor(script);
  } catch {
    return null;
  }
}

function follow(map: SourceMapLike, at: Position, root: string): Position | null | typeof BUNDLER_RUNTIME {
  if (at.line < 1) return null;
  let entry;
  try {
    entry = map.findEntry(at.line - 1, Math.max(0, at.column - 1));
  } catch {
    return null;
  }
  if (!entry || typeof entry.originalSource !== 'string' || typeof entry.originalLine !== 'number') return null;
  let source: string | null;
  try {
    source = originalPath(entry.originalSource, at.file, root);
  } catch {
    return null;
  }
  if (source === null) return BUNDLER_RUNTIME;
  return { file: source, line: entry.originalLine + 1, column: (entry.originalColumn ?? 0) + 1 };
}

/** A script's own map (the chain's first link), for the frame rules that read what it says of its sources. */
export function scriptMap(script: string): SourceMapLike | null {
  return mapOf(script, true);
}
