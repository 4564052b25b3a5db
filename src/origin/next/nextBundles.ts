import fs from 'node:fs';
import path from 'node:path';
import { bundleCallAt, calleeOf, matchCall, sourceShapes, type SourceShapes } from './callShapes';
import { chunkRouteSources, isTurbopackBuild, projectPaths } from './turbopackChunks';
import { notKept } from '../keptVerdicts';
import { MAX_MANIFEST_BYTES, readSafeText } from '../../util/safeRead';

/**
 * The app's own line for a frame in a Next.js server bundle that has no source map (`next build` without
 * `experimental.serverSourceMaps`, Next 14 and 15's default): the bundle names the source it was built from —
 * `resolvedPagePath` and the loader tree's paths in app-router bundles, absolute; the bundle's own path under
 * `server/pages/` for the pages router — and that source and the app files it imports are searched for the one
 * call of the same surviving shape (callShapes). No unique match: null, and the origin stays the bundle's line.
 *
 * Lazy: nothing is read until an origin frame lands in such a bundle; each bundle, source file and tsconfig is read
 * once; each frame position is matched once.
 */

/** Files larger than this are not read (a route bundle is kilobytes; a source file too). */
const MAX_BYTES = 16 * 1024 * 1024;
/** Source files searched per bundle: the route's own files and what they import from the app, transitively. */
const MAX_SOURCES = 200;
/**
 * Bundle texts kept for the next new frame position, in all: a route bundle with its dependencies bundled can
 * weigh megabytes, and an app hundreds of routes; beyond this a bundle is read again for each new call site.
 */
const MAX_KEPT_BYTES = 32 * 1024 * 1024;
let keptBytes = 0;
/** Frame positions remembered per bundle. */
const MAX_POSITIONS = 1000;
const EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/** A Next.js build (`<distDir>`), as its `required-server-files.json` describes it. */
interface Build {
  /** The project folder the bundles were built from, as they name it (`appDir`). */
  builtAt: string;
  /** The project folder now: `builtAt` when the build is still inside it, else the folder the build sits in. */
  project: string;
  pageExtensions: string[];
  aliases: Aliases;
  /** The build folder itself. */
  dist: string;
  /** A Turbopack build (Next 16's default): the app's modules sit in shared chunks under `server/chunks/`. */
  turbopack: boolean;
}

interface Bundle {
  /** The bundle's text while the kept texts stay under MAX_KEPT_BYTES; read again for a new position otherwise. */
  text: string | null;
  build: Build;
  /** Offsets of line starts (a bundle has one or a few lines). */
  lines: number[];
  /**
   * A Turbopack chunk, shared by routes and by Next's own modules: a call matched there must keep its callee's name
   * (`fetch`, `.json`), as a minified one-letter call of Next's (`e(t)`) says nothing of which source call it is.
   */
  chunk: boolean;
  /** Lazily: the app source files this bundle was built from, with their shapes. */
  sources?: { file: string; calls: SourceShapes['calls'] }[];
  found: Map<number, { file: string; line: number } | null>;
}

const builds = new Map<string, Build | null>();
const bundles = new Map<string, Bundle | null>();
const shapes = new Map<string, SourceShapes | null>();

/**
 * The app source file and line of the call at a frame's position (1-based line and column) in a Next.js server
 * bundle (`<distDir>/server/app/…` or `server/pages/…`, or a Turbopack build's `server/chunks/…`), or null: not
 * such a bundle, or no unique match.
 * Never throws.
 */
export function nextBundleCall(file: string, line: number, column: number): { file: string; line: number } | null {
  try {
    const bundle = bundleOf(file);
    if (!bundle || line < 1 || line > bundle.lines.length || column < 1) return null;
    const offset = bundle.lines[line - 1]! + column - 1;
    let found = bundle.found.get(offset);
    if (found !== undefined) return found;
    const text = bundle.text ?? readSafeText(file, { maxBytes: MAX_BYTES, follow: true });
    const call = bundle.chunk ? bundleCallAt(text, offset) : null;
    if (bundle.chunk && (!call || calleeOf(call.key).length < 3)) found = null;
    else {
      bundle.sources ??= sourcesOf(file, text, bundle.build, bundle.chunk);
      found = matchCall(text, offset, bundle.sources);
    }
    if (bundle.found.size < MAX_POSITIONS) bundle.found.set(offset, found);
    else notKept();
    return found;
  } catch {
    notKept();
    return null;
  }
}

const SERVER = `${path.sep}server${path.sep}`;
/** Bound on the script names remembered (an app's own files are asked here too, and told at once). */
const MAX_BUNDLES = 5000;

function bundleOf(file: string): Bundle | null {
  if (!file.includes(SERVER)) return null;
  let bundle = bundles.get(file);
  if (bundle !== undefined) return bundle;
  bundle = null;
  const parts = file.split(path.sep);
  const server = parts.lastIndexOf('server');
  const kind = parts[server + 1];
  if (server > 0 && (kind === 'app' || kind === 'pages' || kind === 'chunks') && file.endsWith('.js')) {
    let build = buildOf(parts.slice(0, server).join(path.sep));
    // Webpack's shared chunks stay Next's runtime (its route bundles hold the app's modules).
    if (kind === 'chunks' && !build?.turbopack) build = null;
    const text = build && readOrNull(file);
    if (build && text !== null) {
      const lines = [0];
      for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines.push(at + 1);
      const keep = keptBytes + text.length <= MAX_KEPT_BYTES;
      if (keep) keptBytes += text.length;
      bundle = { text: keep ? text : null, build, lines, chunk: kind === 'chunks', found: new Map() };
    }
  }
  if (bundles.size < MAX_BUNDLES) bundles.set(file, bundle);
  else notKept();
  return bundle;
}

function buildOf(dist: string): Build | null {
  let build = builds.get(dist);
  if (build !== undefined) return build;
  build = null;
  try {
    const described = JSON.parse(readSafeText(path.join(dist, 'required-server-files.json'), { maxBytes: MAX_MANIFEST_BYTES, follow: true })) as {
      appDir?: unknown;
      config?: { distDir?: unknown; pageExtensions?: unknown };
    };
    const builtAt = typeof described.appDir === 'string' ? described.appDir : null;
    if (builtAt) {
      const distDir = typeof described.config?.distDir === 'string' ? path.normalize(described.config.distDir) : '.next';
      // A build copied elsewhere (a container image, another checkout): the project is the folder its distDir sits in.
      const moved = dist.endsWith(path.sep + distDir) ? dist.slice(0, -distDir.length - 1) : path.dirname(dist);
      const project = dist.startsWith(builtAt + path.sep) ? builtAt : moved;
      const extensions = described.config?.pageExtensions;
      const pageExtensions = Array.isArray(extensions) ? extensions.filter((ext): ext is string => typeof ext === 'string') : ['tsx', 'ts', 'jsx', 'js'];
      build = { builtAt, project, pageExtensions, aliases: aliasesOf(project), dist, turbopack: isTurbopackBuild(dist) };
    }
  } catch {
    build = null;
  }
  builds.set(dist, build);
  return build;
}

/**
 * The source files a bundle was built from, then the app files they import (breadth first, bounded). A Turbopack
 * chunk's: the paths it names, and the sources of the routes that load it (turbopackChunks).
 */
function sourcesOf(file: string, text: string, build: Build, chunk: boolean): { file: string; calls: SourceShapes['calls'] }[] {
  const queue: string[] = [];
  const seen = new Set<string>();
  const add = (source: string | null) => {
    if (!source || seen.has(source) || seen.size >= MAX_SOURCES || source.includes(NODE_MODULES)) return;
    seen.add(source);
    queue.push(source);
  };
  for (const named of namedSources(text, build.builtAt)) add(existing(path.join(build.project, named)));
  if (chunk) {
    for (const named of projectPaths(text)) add(existing(path.join(build.project, named)));
    const routes = chunkRouteSources(build.dist, file);
    for (const named of routes.files) add(existing(path.join(build.project, named)));
    for (const base of routes.bases) add(existing(path.join(build.project, base)));
  }
  const parts = file.split(path.sep);
  const server = parts.lastIndexOf('server');
  if (parts[server + 1] === 'pages') {
    const page = parts
      .slice(server + 2)
      .join(path.sep)
      .replace(/\.js$/, '');
    for (const dir of ['pages', path.join('src', 'pages')])
      for (const ext of build.pageExtensions) {
        add(existing(path.join(build.project, dir, `${page}.${ext}`)));
        add(existing(path.join(build.project, dir, page, `index.${ext}`)));
      }
  }
  const sources: { file: string; calls: SourceShapes['calls'] }[] = [];
  for (let index = 0; index < queue.length; index++) {
    const source = queue[index]!;
    const read = shapesOf(source);
    if (!read) continue;
    sources.push({ file: source, calls: read.calls });
    for (const specifier of read.imports) add(resolveImport(specifier, source, build));
  }
  return sources;
}

/**
 * Source paths a bundle names, relative to the project it was built in: the string literals that start with that
 * folder and end with a source extension (read with indexOf: linear in the bundle).
 */
export function namedSources(text: string, builtAt: string): string[] {
  const found = new Set<string>();
  // As a JS string writes it: a Windows path's backslashes are doubled.
  const prefix = JSON.stringify(builtAt + path.sep).slice(0, -1);
  for (let at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + prefix.length)) {
    const end = text.indexOf('"', at + prefix.length);
    if (end < 0) break;
    const relative = text.slice(at + prefix.length, end).replace(/\\\\/g, '\\');
    if (EXTENSIONS.includes(path.extname(relative)) && !relative.includes('node_modules')) found.add(relative);
  }
  return [...found];
}

function shapesOf(file: string): SourceShapes | null {
  let read = shapes.get(file);
  if (read !== undefined) return read;
  read = null;
  const text = readOrNull(file);
  if (text !== null) read = sourceShapes(text);
  shapes.set(file, read);
  return read;
}

/** The file itself, or with a source extension, or its folder's index file; null when none is there. */
function existing(base: string): string | null {
  const isFile = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  if (EXTENSIONS.includes(path.extname(base)) && isFile(base)) return base;
  // `./x.js` written for `./x.ts` (TypeScript's ESM style).
  const bare = /\.(m|c)?jsx?$/.test(base) ? base.replace(/\.(m|c)?jsx?$/, '') : base;
  for (const ext of EXTENSIONS) if (isFile(bare + ext)) return bare + ext;
  for (const ext of EXTENSIONS) if (isFile(path.join(base, `index${ext}`))) return path.join(base, `index${ext}`);
  return null;
}

/** tsconfig/jsconfig `paths` (`@/*` → `./src/*`) and `baseUrl`, read once per project. */
interface Aliases {
  baseUrl: string | null;
  paths: { prefix: string; suffix: string; targets: string[] }[];
}

function resolveImport(specifier: string, from: string, build: Build): string | null {
  if (specifier.startsWith('.')) return existing(path.resolve(path.dirname(from), specifier));
  const { aliases, project } = build;
  for (const alias of aliases.paths) {
    if (!specifier.startsWith(alias.prefix) || !specifier.endsWith(alias.suffix) || specifier.length < alias.prefix.length + alias.suffix.length) continue;
    const star = specifier.slice(alias.prefix.length, specifier.length - alias.suffix.length);
    for (const target of alias.targets) {
      const found = existing(path.resolve(aliases.baseUrl ?? project, target.replace('*', star)));
      if (found) return found;
    }
  }
  return aliases.baseUrl ? existing(path.resolve(aliases.baseUrl, specifier)) : null;
}

function aliasesOf(project: string): Aliases {
  for (const name of ['tsconfig.json', 'jsconfig.json']) {
    const file = path.join(project, name);
    if (!fs.existsSync(file)) continue;
    try {
      const options = (
        JSON.parse(withoutComments(readSafeText(file, { maxBytes: MAX_MANIFEST_BYTES, follow: true }))) as {
          compilerOptions?: { baseUrl?: unknown; paths?: unknown };
        }
      ).compilerOptions;
      const baseUrl = typeof options?.baseUrl === 'string' ? path.resolve(project, options.baseUrl) : null;
      const paths: Aliases['paths'] = [];
      if (options?.paths && typeof options.paths === 'object') {
        for (const [pattern, targets] of Object.entries(options.paths as Record<string, unknown>)) {
          if (!Array.isArray(targets)) continue;
          const star = pattern.indexOf('*');
          paths.push({
            prefix: star < 0 ? pattern : pattern.slice(0, star),
            suffix: star < 0 ? '' : pattern.slice(star + 1),
            targets: targets.filter((target): target is string => typeof target === 'string'),
          });
        }
      }
      return { baseUrl, paths };
    } catch {
      // A tsconfig Probe cannot read: relative imports only.
    }
  }
  return { baseUrl: null, paths: [] };
}

/** JSON with comments and trailing commas (tsconfig's dialect) as JSON: one pass, strings kept as they are. */
export function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === ',') {
      let k = i + 1;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      if (text[k] !== '}' && text[k] !== ']') out += c;
    } else out += c;
  }
  return out;
}

/** A bundle's or source file's text, or null (not a regular file, larger than MAX_BYTES, unreadable). */
function readOrNull(file: string): string | null {
  try {
    return readSafeText(file, { maxBytes: MAX_BYTES, follow: true });
  } catch {
    return null;
  }
}
