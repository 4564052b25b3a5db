import type { Capture } from '../capture/types';

/** A capture kept by name (`probe baseline save`), as its file holds it. */
export interface Baseline {
  name: string;
  /** Epoch seconds. */
  saved_at: number;
  capture: Capture;
}

/** One line of `probe baseline list`. */
export interface BaselineEntry {
  name: string;
  saved_at: number;
  id: string;
  type: string;
  capture_name: string;
  status: string;
  calls: number;
}
