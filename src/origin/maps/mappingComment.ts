import { MAP_LATER, type FoundMap, type MapSource } from './MapSource';
import { mapFromUrl, mappingUrl, scriptText } from './readMap';

/**
 * The map a file on disk names in its last line, `//# sourceMappingURL=` (a `data:` URL or a path beside it):
 * what tsc, esbuild, webpack, rollup and Vite write. Read for the first frame's file and at every link of a
 * chain (a bundle's map points at an intermediate build, whose own comment names the next map).
 */
export const mappingComment: MapSource = {
  name: 'sourceMappingURL comment',
  kind: 'file',
  mapFor(script: string): FoundMap | null | typeof MAP_LATER {
    const text = scriptText(script);
    const url = text === null ? null : mappingUrl(text);
    const map = url === null ? null : mapFromUrl(url, script);
    if (map) return { map };
    // A map file named but not readable (yet): a dev server writes a chunk's map beside it, maybe after the chunk.
    return url !== null && !url.startsWith('data:') && !/^[a-z][a-z0-9+.-]*:/i.test(url.replace(/^file:/, '')) ? MAP_LATER : null;
  },
};
