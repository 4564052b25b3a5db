/** workerData key of the file store's write thread: Probe's preload skips that thread (no app runs there). */
export const WRITE_THREAD_MARK = 'probeFileStoreWriteThread';

/**
 * The export condition the store's thread runs with: the app's config file, loaded there, gets package.json's
 * `probe-store-thread` entry for `probe` (src/storeThreadEntry.ts: the parts a config names, without the runtime).
 */
export const STORE_THREAD_EXEC_ARGV = ['--conditions=probe-store-thread'];
