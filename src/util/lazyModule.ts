/**
 * A module of Probe's required the first time it is used instead of when the file naming it loads. The preload
 * runs in every process an app starts (a test runner's process per file, a short script), so its start-up loads
 * only what recording needs before the first call: the code that builds, masks, resolves frames or writes is
 * loaded by the first call that needs it, and a process that makes none never pays for it.
 * Use: `const rules = lazyModule(() => require('./rules') as typeof import('./rules'));` then `rules().judge(...)`.
 */
export function lazyModule<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}
