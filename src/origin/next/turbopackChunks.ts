import fs from 'node:fs';
import path from 'node:path';
import { MAX_MANIFEST_BYTES, readSafeText } from '../../util/safeRead';

/**
 * Which app routes load a server chunk of a Turbopack production build (`next build` by default from Next 16),
 * and so which app source files a frame in that chunk may come from. Turbopack's production chunks
 * (`server/chunks/[root-of-the-server]__….js`, `server/chunks/ssr/….js`) hold the app's modules beside Next's
 * under numeric ids, with no paths and, by default, no maps; but each route's entry file (`server/app/<page>.js`,
 * `server/pages/<page>.js`, named by app-paths-manifest.json and pages-manifest.json) is a short list of the
 * chunks it loads (`R.c("server/chunks/….js")`), and the route's page names its source (`/blog/[slug]/page` is
 * `app/blog/[slug]/page.tsx`). The server-reference manifest names the files of the server actions a page runs.
 *
 * Read lazily, once per build: the manifests and the entry files (a few hundred bytes each) when the first origin
 * frame lands in one of its chunks.
 */

/** Entry files larger than this are not a Turbopack route entry (it is a list of chunks). */
const MAX_ENTRY_BYTES = 256 * 1024;
/** Routes read per build (an app with more keeps the first ones). */
const MAX_ROUTES = 5000;

/** A route of the build: its router and its page as the manifests name it (`/blog/[slug]/page`, `/old/[id]`). */
export interface ChunkRoute {
  router: 'app' | 'pages';
  page: string;
}

interface Loaders {
  /** Chunk path relative to the build (`server/chunks/….js`, `/`-separated) → the routes that load it. */
  routes: Map<string, ChunkRoute[]>;
  /** App-router page (`/actions/page`) → project-relative files of the server actions it runs. */
  actions: Map<string, string[]>;
}

const builds = new Map<string, Loaders | null>();

/** Whether the build at `dist` is Turbopack's: its server chunks come with Turbopack's runtime. */
export function isTurbopackBuild(dist: string): boolean {
  const chunks = path.join(dist, 'server', 'chunks');
  return fs.existsSync(path.join(chunks, '[turbopack]_runtime.js')) || fs.existsSync(path.join(chunks, 'ssr', '[turbopack]_runtime.js'));
}

/**
 * The project-relative candidate source files (without extension where the page's is unknown: see `bases`) of
 * the routes that load `chunk` (an absolute path inside `dist`). Empty when none does: Next's own chunk.
 */
export function chunkRouteSources(dist: string, chunk: string): { files: string[]; bases: string[] } {
  const loaders = loadersOf(dist);
  const files: string[] = [];
  const bases: string[] = [];
  if (!loaders) return { files, bases };
  const relative = path.relative(dist, chunk).split(path.sep).join('/');
  for (const route of loaders.routes.get(relative) ?? []) {
    if (route.router === 'pages') {
      for (const dir of ['pages', 'src/pages']) bases.push(`${dir}${route.page}`, `${dir}${route.page}/index`);
      continue;
    }
    // The page or route file, and the layouts and templates around it (they run for the same request).
    const parts = route.page.split('/').filter(Boolean);
    for (const dir of ['app', 'src/app']) {
      bases.push(`${dir}/${parts.join('/')}`);
      for (let depth = 0; depth < parts.length; depth++) {
        const folder = [dir, ...parts.slice(0, depth)].join('/');
        bases.push(`${folder}/layout`, `${folder}/template`);
      }
    }
    files.push(...(loaders.actions.get(route.page) ?? []));
  }
  return { files, bases };
}

/**
 * Source paths a Turbopack chunk names itself, relative to the project: `[project]/app/…/route.ts` (the route
 * module's `resolvedPagePath`), read with indexOf (linear in the chunk).
 */
export function projectPaths(text: string): string[] {
  const found = new Set<string>();
  const prefix = '"[project]/';
  for (let at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + prefix.length)) {
    const end = text.indexOf('"', at + prefix.length);
    if (end < 0) break;
    const relative = text.slice(at + prefix.length, end);
    // A module id string also carries its layer (`[project]/app/page.tsx [app-rsc] (ecmascript)`).
    const file = relative.split(' ')[0]!;
    if (/\.[cm]?[jt]sx?$/.test(file) && !file.includes('node_modules')) found.add(file);
  }
  return [...found];
}

/** The chunks each route entry of the build loads, from the manifests; null when the build has none. */
function loadersOf(dist: string): Loaders | null {
  let loaders = builds.get(dist);
  if (loaders !== undefined) return loaders;
  loaders = null;
  try {
    const server = path.join(dist, 'server');
    const routes = new Map<string, ChunkRoute[]>();
    let count = 0;
    for (const router of ['app', 'pages'] as const) {
      const manifest = readJson(path.join(server, `${router}${router === 'app' ? '-paths' : ''}-manifest.json`));
      for (const [page, entry] of Object.entries(manifest ?? {})) {
        if (typeof entry !== 'string' || !entry.endsWith('.js') || count++ >= MAX_ROUTES) continue;
        const file = path.join(server, entry);
        let text: string;
        try {
          text = readSafeText(file, { maxBytes: MAX_ENTRY_BYTES, follow: true });
        } catch {
          continue;
        }
        for (const chunk of loadedChunks(text)) {
          const list = routes.get(chunk) ?? [];
          list.push({ router, page });
          routes.set(chunk, list);
        }
      }
    }
    loaders = { routes, actions: actionsOf(server) };
  } catch {
    loaders = null;
  }
  builds.set(dist, loaders);
  return loaders;
}

/** The chunk paths a route entry loads: its `"server/chunks/….js"` string literals. */
export function loadedChunks(entry: string): string[] {
  const found: string[] = [];
  const prefix = '"server/chunks/';
  for (let at = entry.indexOf(prefix); at >= 0; at = entry.indexOf(prefix, at + prefix.length)) {
    const end = entry.indexOf('"', at + 1);
    if (end < 0) break;
    found.push(entry.slice(at + 1, end));
  }
  return found;
}

/** server-reference-manifest.json: each server action's source file, under the app pages (`workers`) that run it. */
function actionsOf(server: string): Map<string, string[]> {
  const actions = new Map<string, string[]>();
  const manifest = readJson(path.join(server, 'server-reference-manifest.json')) as { node?: Record<string, { workers?: unknown; filename?: unknown }> } | null;
  for (const action of Object.values(manifest?.node ?? {})) {
    if (typeof action?.filename !== 'string' || !action.workers || typeof action.workers !== 'object') continue;
    for (const worker of Object.keys(action.workers)) {
      if (!worker.startsWith('app/')) continue;
      const page = worker.slice('app'.length);
      const list = actions.get(page) ?? [];
      if (!list.includes(action.filename)) list.push(action.filename);
      actions.set(page, list);
    }
  }
  return actions;
}

function readJson(file: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readSafeText(file, { maxBytes: MAX_MANIFEST_BYTES, follow: true });
  } catch {
    return null;
  }
  const value = JSON.parse(text) as unknown;
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}
