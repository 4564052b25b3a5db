import type { MapSource } from './MapSource';
import { evaluatedScripts } from './evaluatedScripts';
import { nodeCache } from './nodeCache';
import { webpackEval } from './webpackEval';
import { mappingComment } from './mappingComment';
import { besideFile } from './besideFile';

/**
 * Where a script's map is looked for, first answer wins. The maps of the code that actually ran come first
 * (what a transformer or test runner compiled under the file's name, Node's cache, a webpack eval module's),
 * then what the file on disk names (its comment, a `.map` beside it): for a transformed file, the file on disk
 * is the source, not what ran.
 */
export const MAP_SOURCES: readonly MapSource[] = [evaluatedScripts, nodeCache, webpackEval, mappingComment, besideFile];
