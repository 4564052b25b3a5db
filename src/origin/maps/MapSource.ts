/**
 * The contract of a place a source map can come from. The chain follower (`../mapChain.ts`) asks the sources of
 * `mapSources.ts` in order, for one script at a time, and caches what the first one that knows the script says.
 * Adding a transformer or bundler whose maps are found nowhere else is a file here and its test: see
 * docs/architecture.md, "Adding a map source".
 */

/** What a map says of one generated position: zero-based, as Node's `SourceMap#findEntry` answers. */
export interface MapEntry {
  originalSource?: string;
  originalLine?: number;
  originalColumn?: number;
}

/** A source map as the chain reads it: Node's `module.SourceMap` is one. */
export interface SourceMapLike {
  /** The entry for a zero-based generated line and column; `{}` (or no `originalSource`) when the map has none. */
  findEntry(line: number, column: number): MapEntry;
}

/** What a source says of a script whose map file it names but cannot read now. */
export const MAP_LATER = 'later';

/** A source map found for a script, and how long it may be kept. */
export interface FoundMap {
  map: SourceMapLike;
  /**
   * true: the script can be evaluated again under the same name with other code (`next dev` reloading a
   * webpack eval module, a test runner's module registry reset): the chain asks the source again each time
   * instead of caching (the source keeps what it needs to answer cheaply).
   */
  reloads?: boolean;
}

export interface MapSource {
  /** Shown in debug output and docs. */
  readonly name: string;
  /**
   * `evaluated`: the map of the code the runtime ran under that script name (known only for a script that ran:
   * asked for the first frame of a stack only). `file`: a map named by the file's text on disk (asked at every
   * link of a chain: a bundle's map points at an intermediate build whose own file names the next map).
   */
  readonly kind: 'evaluated' | 'file';
  /**
   * The map of `script` (an absolute path, or a script name such as `webpack-internal:///…`), or null when this
   * source knows none, or `MAP_LATER` when the script names a map file that cannot be read now (a dev server may
   * be writing it): the chain then asks again at a later frame, a few times at most. Called lazily, off the app's
   * path, once per script (but see `reloads`). Never throws: the chain treats a throw as null.
   */
  mapFor(script: string): FoundMap | null | typeof MAP_LATER;
}
