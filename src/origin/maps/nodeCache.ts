import { findSourceMap } from 'node:module';
import type { FoundMap, MapSource } from './MapSource';

/**
 * Node's own source-map cache (`module.findSourceMap`). Node fills it only while source maps are enabled
 * (`--enable-source-maps`, `process.setSourceMapsEnabled(true)`, which tsx calls, or `NODE_V8_COVERAGE`), for
 * the scripts and modules its loader compiled then; with it, the map of whatever a loader hook handed Node
 * (ESM loaders included, whose output Probe never sees).
 */
export const nodeCache: MapSource = {
  name: "Node's source-map cache",
  kind: 'evaluated',
  mapFor(script: string): FoundMap | null {
    if (!script.startsWith('/') && !script.startsWith('file:') && !/^[A-Za-z]:[\\/]/.test(script)) return null;
    const map = findSourceMap(script);
    return map ? { map } : null;
  },
};
