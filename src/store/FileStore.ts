// Placeholder: the file driver is being written (issue 2/3). Keeps the tree compiling meanwhile.
import type { Store } from './Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';

export interface FileStoreOptions {
  path: string;
  limit: number;
  logger?: Logger;
}

export class FileStore implements Store {
  constructor(readonly options: FileStoreOptions) {}
  async put(_capture: Capture): Promise<void> {}
  async find(_id: string): Promise<Capture | null> {
    return null;
  }
  async index(): Promise<IndexRow[]> {
    return [];
  }
  async clear(): Promise<void> {}
}
