import { runStoreContract } from './contract';
import { fileDriver } from './file-driver';

// The file store as apps get it: puts go through the write thread (ThreadedStore), reads stay on the caller's.
runStoreContract({ ...fileDriver, name: 'file (write thread, as apps get it)', writeThread: true });
