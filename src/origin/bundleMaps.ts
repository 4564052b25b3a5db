import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEBPACK_INTERNAL } from './maps/webpackEval';

/**
 * What a bundle's names mean: the original sources its maps name, webpack's eval module names, and the files of
 * a framework's bundled runtime. (The maps themselves are found by `maps/` and followed by `mapChain.ts`.)
 */

/**
 * An original source as a map names it, as an absolute path: `webpack://app/./x.ts` and webpack-internal names
 * (webpack's context, the project, is the app root), Turbopack's `[project]/x.ts`, file URLs, and relative URLs
 * from the map's script (percent escapes decoded). Null for bundler runtime code (`webpack/runtime/…`, `[turbopack]/…`).
 */
const TURBOPACK_ROOT = /^\[(?:project|turbopack)\]\//;

export function originalPath(source: string, script: string, root: string): string | null {
  let rest: string | undefined;
  if (source.startsWith('webpack://')) rest = source.slice('webpack://'.length).replace(/^[^/]*\//, '');
  else if (source.startsWith(WEBPACK_INTERNAL)) rest = source.slice(WEBPACK_INTERNAL.length).replace(/^\([^)]*\)\//, '');
  else if (source.startsWith('turbopack:///')) rest = decodeUrlPath(source.slice('turbopack:///'.length));
  // Turbopack's own roots only: any other name in brackets is a relative URL like the rest (vite-node writes a
  // Nuxt page `pages/users/[id].vue` as `[id].vue`, relative to the evaluated module's own name).
  else if (TURBOPACK_ROOT.test(source)) rest = source;
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
