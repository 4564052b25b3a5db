import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceMap, findSourceMap } from 'node:module';

/**
 * Source maps of bundled and transformed code, read by Probe itself so that an origin names the app's own file
 * and line without the app turning source maps on (`--enable-source-maps` / `process.setSourceMapsEnabled` stay
 * the app's to decide, and its error stacks unchanged). Read lazily, for origin frames only, once per script.
 *
 * - A script on disk: Node's own map when it has one, else the `//# sourceMappingURL=` comment of the file
 *   (inline `data:` or a `.map` file beside it): Next.js with `experimental.serverSourceMaps`, Turbopack, tsc, esbuild.
 * - webpack's `eval-source-map` modules (`next dev` with webpack): each module is an `eval` whose script is named
 *   `webpack-internal:///(layer)/./app/x.ts` and carries its map inline; V8 does not hand the eval'd text to a
 *   stack frame, so the map is found in the bundle files Node loaded (require.cache) by that name.
 */

/** Scripts larger than this are not read for a map (a map comment is at the end of the file). */
const MAX_SCRIPT_BYTES = 64 * 1024 * 1024;
const WEBPACK_INTERNAL = 'webpack-internal:///';

type Map = InstanceType<typeof SourceMap>;

const byScript = new Map<string, Map | null>();

/**
 * The source map of a script (an absolute path, a file URL or a webpack-internal name), or null. Never throws.
 * A file's map is settled once it is loaded; a webpack eval module's is looked up each time (cheaply): `next dev`
 * reloads a bundle after an edit under the same module names, with new maps.
 */
export function scriptSourceMap(name: string): Map | null {
  if (name.startsWith(WEBPACK_INTERNAL)) {
    try {
      return evalModuleMap(name);
    } catch {
      return null;
    }
  }
  let map = byScript.get(name);
  if (map !== undefined) return map;
  try {
    map = fileMap(name);
  } catch {
    map = null;
  }
  byScript.set(name, map);
  return map;
}

function fileMap(file: string): Map | null {
  const known = findSourceMap(file);
  if (known) return known;
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > MAX_SCRIPT_BYTES) return null;
  const text = fs.readFileSync(file, 'utf8');
  const marker = '//# sourceMappingURL=';
  const at = text.lastIndexOf(marker);
  if (at < 0) return null;
  // Only the file's last comment: the text may quote the marker elsewhere (webpack's eval modules do).
  const end = text.indexOf('\n', at);
  if (end >= 0 && text.slice(end).trim() !== '') return null;
  const url = text.slice(at + marker.length, end < 0 ? undefined : end).trim();
  if (url.startsWith('data:')) return mapFromDataUrl(url);
  const mapFile = url.startsWith('file://') ? fileURLToPath(url) : path.resolve(path.dirname(file), decodeURIComponent(url));
  const mapStat = fs.statSync(mapFile, { throwIfNoEntry: false });
  if (!mapStat?.isFile() || mapStat.size > MAX_SCRIPT_BYTES) return null;
  return new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8')));
}

function mapFromDataUrl(url: string): Map | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const head = url.slice(0, comma);
  const body = url.slice(comma + 1);
  const json = head.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
  return new SourceMap(JSON.parse(json));
}

/** Bundle files searched for eval modules, as the module object Node loaded (a reloaded bundle is a new one). */
const searched = new Map<string, NodeModule>();
/** App eval modules found (node_modules' are skipped anyway): the bundle that holds each, and its map. */
interface EvalModule {
  file: string;
  module: NodeModule;
  base64: string;
  map?: Map;
}
const evalModules = new Map<string, EvalModule>();
/** `eval("…//# sourceMappingURL=data:…;base64,XXX\n//# sourceURL=webpack-internal:///NAME\n")` as it is written in the bundle. */
const EVAL_MODULE = /sourceMappingURL=data:application\/json;charset=utf-8;base64,([A-Za-z0-9+/=]+)\\n\/\/# sourceURL=(webpack-internal:\/\/\/[^"\\]*)/g;

function evalModuleMap(name: string): Map | null {
  let found = current(evalModules.get(name));
  if (!found) {
    for (const [file, module] of Object.entries(require.cache)) {
      if (!module || searched.get(file) === module || file.includes(`${path.sep}node_modules${path.sep}`) || !file.endsWith('.js')) continue;
      searched.set(file, module);
      indexEvalModules(file, module);
    }
    found = current(evalModules.get(name));
  }
  if (!found) return null;
  found.map ??= new SourceMap(JSON.parse(Buffer.from(found.base64, 'base64').toString('utf8')));
  return found.map;
}

/** The module as long as its bundle is still the one loaded. */
function current(found: EvalModule | undefined): EvalModule | undefined {
  return found && require.cache[found.file] === found.module ? found : undefined;
}

function indexEvalModules(file: string, module: NodeModule): void {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > MAX_SCRIPT_BYTES) return;
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes(WEBPACK_INTERNAL)) return;
  for (const match of text.matchAll(EVAL_MODULE)) {
    const name = match[2]!;
    if (!name.includes('/node_modules/')) evalModules.set(name, { file, module, base64: match[1]! });
  }
}

/**
 * An original source as a map names it, as an absolute path: `webpack://app/./x.ts` and webpack-internal names
 * (webpack's context, the project, is the app root), Turbopack's `[project]/x.ts`, file URLs, and relative URLs
 * from the map's script (percent escapes decoded). Null for bundler runtime code (`webpack/runtime/…`, `[turbopack]/…`).
 */
export function originalPath(source: string, script: string, root: string): string | null {
  let rest: string | undefined;
  if (source.startsWith('webpack://')) rest = source.slice('webpack://'.length).replace(/^[^/]*\//, '');
  else if (source.startsWith(WEBPACK_INTERNAL)) rest = source.slice(WEBPACK_INTERNAL.length).replace(/^\([^)]*\)\//, '');
  else if (source.startsWith('turbopack:///')) rest = decodeUrlPath(source.slice('turbopack:///'.length));
  else if (source.startsWith('[')) rest = source;
  if (rest !== undefined) {
    if (rest.startsWith('webpack/') || rest.startsWith('[turbopack]') || rest.startsWith('(webpack)')) return null;
    rest = rest.replace(/^\[project\]\//, '').replace(/\?.*$/, '');
    return path.isAbsolute(rest) ? rest : path.resolve(root, rest);
  }
  if (source.startsWith('file://')) return fileURLToPath(source);
  if (path.isAbsolute(source)) return source;
  if (script.startsWith(WEBPACK_INTERNAL)) return path.resolve(root, source);
  // A relative URL: Turbopack's production maps write `../../../app/api/items/%5Bid%5D/route.ts`.
  return path.resolve(path.dirname(script), decodeUrlPath(source));
}

/** A source map's `sources` are URLs: percent escapes decoded (a malformed one left as it is). */
function decodeUrlPath(url: string): string {
  if (!url.includes('%')) return url;
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** A webpack-internal script's own file, when no map is found: `webpack-internal:///(rsc)/./app/x.ts` → `<root>/app/x.ts`. */
export function webpackInternalPath(name: string, root: string): string | null {
  return name.startsWith(WEBPACK_INTERNAL) ? originalPath(name, name, root) : null;
}

export function isWebpackInternal(name: string): boolean {
  return name.startsWith(WEBPACK_INTERNAL);
}

const runtimeBundles = new Map<string, boolean>();

/**
 * A framework's bundled runtime, skipped like node_modules when no map says otherwise: webpack's runtime files
 * and the shared chunks of a Next.js build (`<distDir>/server/chunks/`, `vendor-chunks/`: Next's own fetch
 * wrapper, React), told by the build manifest Next writes beside `server/`.
 */
export function isBundledRuntime(file: string): boolean {
  let known = runtimeBundles.get(file);
  if (known !== undefined) return known;
  known = false;
  const base = path.basename(file);
  const parts = file.split(path.sep);
  const server = parts.lastIndexOf('server');
  if (server > 0) {
    const dist = parts.slice(0, server).join(path.sep);
    const next = fs.existsSync(path.join(dist, 'build-manifest.json')) || fs.existsSync(path.join(dist, 'BUILD_ID'));
    if (next)
      known =
        /^(webpack-runtime|webpack-api-runtime|edge-runtime-webpack)\.js$/.test(base) ||
        parts[server + 1] === 'chunks' ||
        parts[server + 1] === 'vendor-chunks';
  }
  runtimeBundles.set(file, known);
  return known;
}
