import type { Capture, IndexRow } from '../capture/types';

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
