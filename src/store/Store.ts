import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import type { ResolvedConfig } from '../config/types';

/** The storage contract (SPEC 5). Every driver passes test/store/contract.ts. */
export interface Store {
  /** Saves the capture, then removes the oldest beyond the limit. */
  put(capture: Capture): Promise<void>;
  /** The capture, or null for an unknown, expired, corrupt or malformed id. */
  find(id: string): Promise<Capture | null>;
  /** Index rows, newest first. */
  index(): Promise<IndexRow[]>;
  clear(): Promise<void>;
  /**
   * Optional: stores at once, synchronously (the file driver). A process that is exiting uses it when
   * present; otherwise it hands its last captures to a short-lived writer process.
   */
  putSync?(capture: Capture): void;
  /** Releases sockets and timers; optional for custom drivers. */
  close?(): Promise<void>;
}

/** What a store factory is given about the app (SPEC 5: `app` is `{root, config, logger}`). */
export interface StoreApp {
  root: string;
  config: ResolvedConfig;
  logger: Logger;
}

/** `storage[name]` with `limit` added. */
export type StoreDriverConfig = Record<string, unknown> & { limit: number };

export type StoreFactory = (app: StoreApp, config: StoreDriverConfig) => Store;
