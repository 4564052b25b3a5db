// Placeholder: the Redis driver is being written (issue 3).
import type { Store } from './Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  ttl: number;
  limit: number;
  logger?: Logger;
}

export class RedisStore implements Store {
  constructor(readonly options: RedisStoreOptions) {}
  async put(_capture: Capture): Promise<void> {}
  async find(_id: string): Promise<Capture | null> {
    return null;
  }
  async index(): Promise<IndexRow[]> {
    return [];
  }
  async clear(): Promise<void> {}
}
