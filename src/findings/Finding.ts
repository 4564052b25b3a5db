import type { HttpRow } from '../capture/types';

/** The kinds of finding, one file of this folder each. */
export type FindingKind = 'n_plus_one' | 'duplicate' | 'sequential' | 'retry' | 'slow';

/**
 * Something wasteful in one capture's calls, computed when the capture is read (never stored: a capture
 * holds what happened; what is wasteful is a reading of it that improves without re-recording).
 */
export interface Finding {
  kind: FindingKind;
  /** One line for a person: what happened and what it costs. */
  message: string;
  /** Row indexes in the capture's `http` section, in call order. */
  rows: number[];
  /** The app code lines (`file:line`) that made those calls, each once, in call order. */
  lines: string[];
  /** The endpoint the finding is about, when it is about one. */
  endpoint?: string;
  /** Milliseconds the capture would have saved without it (when that can be said). */
  saving_ms?: number;
}

/** Settings of the rules (`findings` in the config). */
export interface FindingSettings {
  /** Calls in a row to one endpoint that make an N+1. */
  readonly nPlusOne: number;
}

export const DEFAULT_FINDING_SETTINGS: FindingSettings = Object.freeze({ nPlusOne: 5 });

/** One endpoint's durations across the stored captures (for the `slow` rule). */
export interface EndpointStat {
  /** Calls with a duration. */
  count: number;
  p95: number;
}

/** What every rule reads: one capture's calls, in the order they started. */
export interface FindingInput {
  /** The capture's `http` rows, as stored (indexes are row numbers). */
  readonly rows: readonly HttpRow[];
  /** Row indexes ordered by start time (then row number). */
  readonly order: readonly number[];
  readonly settings: FindingSettings;
  /** Per endpoint, across the stored captures; absent when the reader did not gather them. */
  readonly endpoints?: ReadonlyMap<string, EndpointStat>;
}

/** The contract of a finding kind: a pure function of one capture's calls. */
export interface FindingRule {
  readonly kind: FindingKind;
  find(input: FindingInput): Finding[];
}
