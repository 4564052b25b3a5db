import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceMap } from 'node:module';
import type { SourceMapLike } from './MapSource';
import { readSafeText } from '../../util/safeRead';

/** Files (scripts, maps) larger than this are not read: a map comment sits at a script's end, maps past it are rare. */
export const MAX_MAP_BYTES = 64 * 1024 * 1024;

const MARK = '//# sourceMappingURL=';

/**
 * The URL of the text's `//# sourceMappingURL=` comment when it is the text's last line (searched from the end,
 * where transformers put it: a text may quote the marker elsewhere, webpack's eval modules do), or null.
 */
export function mappingUrl(text: string): string | null {
  const at = text.lastIndexOf(MARK);
  if (at < 0) return null;
  const start = at + MARK.length;
  let end = start;
  while (end < text.length && text.charCodeAt(end) > 32) end++;
  for (let i = end; i < text.length; i++) if (text.charCodeAt(i) > 32) return null;
  return end > start ? text.slice(start, end) : null;
}

/**
 * A map from a `sourceMappingURL` as `script` names it: a `data:` URL (base64 or percent-encoded JSON), a file
 * URL, or a path relative to the script's folder. Null when it cannot be read or parsed.
 */
export function mapFromUrl(url: string, script: string): SourceMapLike | null {
  try {
    if (url.startsWith('data:')) {
      const json = dataUrlText(url);
      return json === null ? null : parseMap(json);
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('file:')) return null;
    const file = url.startsWith('file:') ? fileURLToPath(url) : path.resolve(path.dirname(script), decodeURIComponent(url));
    return mapFromFile(file, path.dirname(file) === path.dirname(script) ? undefined : path.dirname(file));
  } catch {
    return null;
  }
}

/**
 * A map file's JSON parsed into a map, or null (absent, too large, not a map). `folder`: the map's own folder when
 * it is not its script's, against which its relative sources are resolved here (the chain resolves what is left
 * relative against the script's folder).
 */
export function mapFromFile(file: string, folder?: string): SourceMapLike | null {
  try {
    return parseMap(readSafeText(file, { maxBytes: MAX_MAP_BYTES, follow: true }), folder);
  } catch {
    return null;
  }
}

function parseMap(json: string, folder?: string): SourceMapLike | null {
  const payload = JSON.parse(json) as { sources?: unknown; sourceRoot?: unknown } | null;
  if (!payload || typeof payload !== 'object') return null;
  if (folder && Array.isArray(payload.sources)) {
    const root = typeof payload.sourceRoot === 'string' ? payload.sourceRoot : '';
    payload.sources = payload.sources.map((source: unknown) =>
      typeof source === 'string' && !/^[a-z][a-z0-9+.-]*:|^\/|^\[/i.test(root + source) ? path.resolve(folder, decodePath(root + source)) : source,
    );
    payload.sourceRoot = undefined;
  }
  return new SourceMap(payload as ConstructorParameters<typeof SourceMap>[0]);
}

/** A source map's `sources` are URLs: percent escapes decoded (a malformed one left as it is). */
function decodePath(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** `data:application/json;charset=utf-8;base64,…` (what babel, TypeScript, esbuild write) or a percent-encoded payload. */
function dataUrlText(url: string): string | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const head = url.slice(5, comma);
  const body = url.slice(comma + 1);
  return head.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
}

/** The text of a script file on disk, or null when it is not a file or too large to look at. */
export function scriptText(file: string): string | null {
  try {
    if (!path.isAbsolute(file)) return null;
    return readSafeText(file, { maxBytes: MAX_MAP_BYTES, follow: true });
  } catch {
    return null;
  }
}
