import type { FoundMap, MapSource } from './MapSource';
import { mapFromUrl } from './readMap';

/** Bound on the scripts remembered (a long Jest run evaluates every module of every test file). */
const MAX_SCRIPTS = 2000;

/** Script name → its `sourceMappingURL` as the evaluated code names it; read into a map at the first origin frame. */
const urls = new Map<string, string>();

/**
 * Notes the `sourceMappingURL` of code evaluated under a script name, where the code is not the file's text on
 * disk: a transformer's output compiled by Node's loader, code a test runner evaluated in a vm context. Only the
 * URL is kept (an inline `data:` URL is the string the evaluated code already holds); it is decoded lazily, once
 * per script, and only if a call's origin frame lies in it. Returns whether the URL changed (a re-evaluated
 * script with new code: whatever was resolved for it before is stale).
 */
export function noteScriptMap(script: string, url: string): boolean {
  if (urls.get(script) === url) return false;
  if (urls.size >= MAX_SCRIPTS && !urls.has(script)) urls.delete(urls.keys().next().value!);
  urls.set(script, url);
  return true;
}

/** Forgets the map noted for a script evaluated again under the same name with code that names none. */
export function dropScriptMap(script: string): boolean {
  return urls.delete(script);
}

/** The maps of evaluated code noted where it was compiled (see `evaluatedCode.ts`, and the Jest environment's vm hooks). */
export const evaluatedScripts: MapSource = {
  name: 'evaluated code',
  kind: 'evaluated',
  mapFor(script: string): FoundMap | null {
    const url = urls.get(script);
    if (!url) return null;
    const map = mapFromUrl(url, script);
    return map ? { map } : null;
  },
};
