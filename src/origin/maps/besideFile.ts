import type { FoundMap, MapSource } from './MapSource';
import { mapFromFile } from './readMap';

/**
 * `<file>.map` beside a file that names no map: a build whose maps are kept out of the code (webpack's
 * `hidden-source-map`, Vite's and rollup's `sourcemap: 'hidden'`).
 */
export const besideFile: MapSource = {
  name: '.map beside the file',
  kind: 'file',
  mapFor(script: string): FoundMap | null {
    if (!script.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(script)) return null;
    const map = mapFromFile(`${script}.map`);
    return map ? { map } : null;
  },
};
