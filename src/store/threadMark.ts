/** workerData key of the file store's write thread: Probe's preload skips that thread (no app runs there). */
export const WRITE_THREAD_MARK = 'probeFileStoreWriteThread';
