import fs from 'node:fs';
import path from 'node:path';
import { MAX_CODE_BYTES, readSafeText } from '../../util/safeRead';

/** A route of Nitro's handler table, as its build writes it: `{ route: '/api/items/:id', …, middleware: false, method: "get" }`. */
interface TableRoute {
  route: string;
  method: string;
}

interface Radix {
  lookup(path: string): { route?: string; methods?: Set<string> } | null;
}

interface Table {
  file: string;
  mtimeMs: number;
  router: Radix | null;
}

type CreateRouter = (options: { routes: Record<string, { route: string; methods: Set<string> }> }) => Radix;

/**
 * Nitro (2, under Nuxt 3 too) answers every request through one node:http listener; the route a request matched is
 * the template of Nitro's handler table (`/api/items/:id`, what Nitro writes for `server/api/items/[id].get.ts`),
 * which its router (h3 with radix3) hands the app's handler as `event.context.matchedRoute.path`. Nitro bundles h3
 * into its build and publishes the match nowhere else (no diagnostics channel, no span, no global app), so the route
 * is found the way Nitro's router finds it: radix3, as the app installs it, over the table Nitro wrote into the code
 * it runs (`.output/server/chunks/nitro/nitro.mjs`, or the dev server's `.nuxt/dev/index.mjs` / `.nitro/dev/index.mjs`),
 * then the method as h3's router takes it (the route's method, else any). The page renderer's `/**` (Nuxt's
 * catch-all) is not a route. https://github.com/nitrojs/nitro/blob/v2/src/runtime/internal/app.ts
 */
export function nitroRouteReader(): ((method: string, url: string) => string | null) | null {
  const file = tableFile();
  if (!file) return null;
  return (method, url) => {
    const router = routerOf(file);
    if (!router) return null;
    const pathname = url.split('?')[0]!.replace(/\/$/, '') || '/';
    const found = router.lookup(pathname);
    if (!found?.route || found.route === '/**') return null;
    const methods = found.methods;
    return methods && (methods.has(method.toLowerCase()) || methods.has('all')) ? found.route : null;
  };
}

/** The file holding the handler table of the Nitro server this thread runs, or null (not a Nitro server). */
function tableFile(): string | null {
  const candidates: string[] = [];
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : null;
  if (entry) candidates.push(path.join(path.dirname(entry), 'chunks', 'nitro', 'nitro.mjs'), entry);
  candidates.push(path.join(process.cwd(), '.nuxt', 'dev', 'index.mjs'), path.join(process.cwd(), '.nitro', 'dev', 'index.mjs'));
  for (const file of candidates) {
    try {
      if (/\.m?js$/.test(file) && readHandlers(readSafeText(file, { maxBytes: MAX_CODE_BYTES, follow: true }))) return file;
    } catch {
      // not there
    }
  }
  return null;
}

const tables = new Map<string, Table>();

/** The table's router, read again when a dev server rewrote the file. */
function routerOf(file: string): Radix | null {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
  const known = tables.get(file);
  if (known && known.mtimeMs === mtimeMs) return known.router;
  let router: Radix | null = null;
  try {
    const routes = readHandlers(readSafeText(file, { maxBytes: MAX_CODE_BYTES, follow: true }));
    const createRouter = radix3(file);
    if (routes && createRouter) {
      const byRoute: Record<string, { route: string; methods: Set<string> }> = {};
      for (const { route, method } of routes) (byRoute[route] ??= { route, methods: new Set() }).methods.add(method);
      router = createRouter({ routes: byRoute });
    }
  } catch {
    router = null;
  }
  tables.set(file, { file, mtimeMs, router });
  return router;
}

/** The routes of `const handlers = [ … ];` (middleware left out), or null when the text has no such table. */
export function readHandlers(text: string): TableRoute[] | null {
  const start = text.indexOf('\nconst handlers = [');
  if (start < 0) return null;
  const end = text.indexOf('\n];', start);
  if (end < 0) return null;
  const routes: TableRoute[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    const match = /^\s*\{ route: '([^']*)', handler: [\w$]+, lazy: (?:true|false), middleware: (true|false), method: (?:"(\w+)"|undefined) \},?$/.exec(line);
    if (match && match[2] === 'false' && match[1]) routes.push({ route: match[1], method: match[3] ?? 'all' });
  }
  return routes;
}

/** radix3's createRouter, as the app (or the dev server's folder) installs it: Nitro's own matcher. */
function radix3(file: string): CreateRouter | null {
  for (const from of [path.dirname(file), process.cwd()]) {
    try {
      const { createRouter } = require(require.resolve('radix3', { paths: [from] })) as { createRouter?: unknown };
      if (typeof createRouter === 'function') return createRouter as CreateRouter;
    } catch {
      // next folder
    }
  }
  return null;
}

/** Each request a Nitro server of this thread starts gets the reader (the table is looked for at the first one). */
export class NitroRequests {
  private reader: ReturnType<typeof nitroRouteReader> | undefined;

  constructor(private readonly noteRoute: (request: object | undefined, route: () => unknown) => void) {}

  note(message: unknown): void {
    const request = (message as { request?: { method?: unknown; url?: unknown } } | undefined)?.request;
    if (!request || typeof request.url !== 'string') return;
    if (this.reader === undefined) this.reader = nitroRouteReader();
    const reader = this.reader;
    if (!reader) return;
    const method = typeof request.method === 'string' ? request.method : 'GET';
    const url = request.url;
    this.noteRoute(request, () => reader(method, url));
  }
}
