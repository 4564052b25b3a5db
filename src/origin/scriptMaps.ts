import fs from 'node:fs';
import path from 'node:path';
import { SourceMap } from 'node:module';

type ScriptSourceMap = InstanceType<typeof SourceMap>;

/** Bound on the scripts remembered (a long Jest run evaluates every module of every test file). */
const MAX_SCRIPTS = 2000;

/** Script file → its `sourceMappingURL` as the evaluated code names it; read into a map at the first origin frame. */
const urls = new Map<string, string>();

/**
 * Notes the source map of a script that Node's module loader did not load, so `findSourceMap` knows nothing of
 * it: code a test runner transformed and evaluated in a vm context itself (babel-jest, ts-jest). Only the URL is
 * kept (an inline `data:` URL is the string the evaluated code already holds); it is decoded lazily, once per
 * file, and only if a call's origin frame lies in that file. Returns whether the URL changed (a re-evaluated
 * file with new code: whatever was resolved for it before is stale).
 */
export function noteScriptSourceMap(file: string, url: string): boolean {
  if (urls.get(file) === url) return false;
  if (urls.size >= MAX_SCRIPTS && !urls.has(file)) urls.delete(urls.keys().next().value!);
  urls.set(file, url);
  return true;
}

/** The source map noted for a script, read now (an inline `data:` URL, or a file beside it), or null. */
export function scriptSourceMap(file: string): ScriptSourceMap | null {
  const url = urls.get(file);
  if (!url) return null;
  try {
    const payload = url.startsWith('data:') ? decodeDataUrl(url) : fs.readFileSync(path.resolve(path.dirname(file), url), 'utf8');
    return payload ? new SourceMap(JSON.parse(payload) as ConstructorParameters<typeof SourceMap>[0]) : null;
  } catch {
    return null;
  }
}

/** `data:application/json;charset=utf-8;base64,...` (what babel and TypeScript write) or a URL-encoded payload. */
function decodeDataUrl(url: string): string | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const header = url.slice(5, comma);
  const body = url.slice(comma + 1);
  return header.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
}
