import type { Capture, IndexRow } from './types';

/** The storage contract. Every driver passes test/store/contract.ts. */
export interface Store {
  /** Saves the capture, then removes the oldest beyond the limit. */
  put(capture: Capture): Promise<void>;
  /** The capture, or null for an unknown, expired, corrupt or malformed id. */
  find(id: string): Promise<Capture | null>;
  /** Index rows, newest first. */
  index(): Promise<IndexRow[]>;
  clear(): Promise<void>;
  /**
   * Optional: why an empty store may stay empty, in one sentence (its folder cannot be written by this user),
   * or null: said where a command answers "no captures yet".
   */
  whyEmpty?(): string | null;
  /**
   * Optional: stores at once, synchronously (the file driver). A process that is exiting uses it when
   * present; otherwise it hands its last captures to a short-lived writer process.
   */
  putSync?(capture: Capture): void;
  /**
   * Optional: the ids of the stored captures, in any order, cheaper than `index()` (file names, a sorted
   * set's members): `probe tail` diffs them to find new captures. Without it, tail reads `index()`.
   */
  ids?(): Promise<string[]>;
  /** Optional: calls `onChange` soon after the stored captures may have changed (a folder watch); returns the stop. */
  watch?(onChange: () => void): () => void;
  /** Releases sockets and timers; optional for custom drivers. */
  close?(): Promise<void>;
}
