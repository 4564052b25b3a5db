/**
 * What this thread has done of the capture work moved off the app's thread: captures built
 * (masking runs only inside a build), texts masked, captures serialised, and HTTP rows built and serialised (a
 * long unit's rows once, whatever versions of it are written: builder/RowCache.ts). Module state is per thread (a
 * worker loads its own copy), so the app's thread reads its own counts: the proof, read by a test from a child app,
 * that with the file store none of it runs there. Plain counters: incrementing costs nothing worth measuring.
 */
export const threadWork = { builds: 0, masked: 0, serialised: 0, rows: 0, rowsSerialised: 0 };
