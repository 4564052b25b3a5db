/** workerData key of the file store's write thread: Probe's preload skips that thread (no app runs there). */
export const WRITE_THREAD_MARK = 'probeFileStoreWriteThread';

/**
 * The options the store's thread runs with. The export condition: the app's config file, loaded there, gets
 * package.json's `probe-store-thread` entry for `probe` (src/storeThreadEntry.ts: the parts a config names, without
 * the runtime). No process warnings from that thread: its full collections (HeapCollector) go through
 * `vm.measureMemory`, whose ExperimentalWarning would reach the app's stderr; the config file it loads warns on the
 * app's thread already, and Probe's own messages there go through its logger, not process warnings.
 */
export const STORE_THREAD_EXEC_ARGV = ['--conditions=probe-store-thread', '--no-warnings'];
