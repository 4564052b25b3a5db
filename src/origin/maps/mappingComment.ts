import type { FoundMap, MapSource } from './MapSource';
import { mapFromUrl, mappingUrl, scriptText } from './readMap';

/**
 * The map a file on disk names in its last line, `//# sourceMappingURL=` (a `data:` URL or a path beside it):
 * what tsc, esbuild, webpack, rollup and Vite write. Read for the first frame's file and at every link of a
 * chain (a bundle's map points at an intermediate build, whose own comment names the next map).
 */
export const mappingComment: MapSource = {
  name: 'sourceMappingURL comment',
  kind: 'file',
  mapFor(script: string): FoundMap | null {
    const text = scriptText(script);
    const url = text === null ? null : mappingUrl(text);
    const map = url === null ? null : mapFromUrl(url, script);
    return map ? { map } : null;
  },
};
