import type { HttpRow } from '../capture/types';
import type { Timeline } from './timeline';

/** The kinds of finding, one file of this folder each. */
export type FindingKind = 'repeated_write' | 'n_plus_one' | 'duplicate' | 'sequential' | 'retry' | 'slow' | 'polling';

/** What a finding costs the unit: what acting on it would save. */
export interface FindingCost {
  /** Milliseconds on the unit's critical path (time when no other call of the unit was in flight). */
  ms: number;
  /** Calls that would not be made. */
  calls: number;
  /** Bytes (request and response) those calls carried, when they were pure repeats; else 0. */
  bytes: number;
}

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
  /** The app code lines (`file:line`) that made those calls, each once, in call order (callers up the origin chain where they differ). */
  lines: string[];
  /** The endpoint the finding is about, when it is about one. */
  endpoint?: string;
  /** Milliseconds the capture would have saved without it (when that can be said): `cost.ms`. */
  saving_ms?: number;
  /** What it costs; findings are listed by it, highest first (a repeated write always first). */
  cost: FindingCost;
  /** Present and true when the cost is under the floor (FINDING_FLOOR): left out unless every finding is asked for. */
  below_floor?: true;
}

/** Settings of the rules (`findings` in the config). */
export interface FindingSettings {
  /** Calls of one call site to one endpoint, with different ids, that make an N+1. */
  readonly nPlusOne: number;
}

export const DEFAULT_FINDING_SETTINGS: FindingSettings = Object.freeze({ nPlusOne: 5 });

/** One endpoint's durations across the stored captures (for the `slow` rule). */
export interface EndpointStat {
  /** Calls with a duration. */
  count: number;
  p95: number;
  /** Every duration, ascending (the `slow` rule compares a call with the others). */
  durations?: readonly number[];
}

/** What every rule reads: one capture's calls, in the order they started, and what is known of them. */
export interface FindingInput {
  /** The capture's `http` rows, as stored (indexes are row numbers). */
  readonly rows: readonly HttpRow[];
  /** Row indexes ordered by start time (then row number). */
  readonly order: readonly number[];
  readonly settings: FindingSettings;
  /** Per endpoint, across the stored captures; absent when the reader did not gather them. */
  readonly endpoints?: ReadonlyMap<string, EndpointStat>;
  /** Whether `endpoints` counts this capture's own calls (then a call is compared with the others, itself taken out). */
  readonly statsInclude?: boolean;
  /** Each row's endpoint with its call site's varying segment folded (builder/endpointTemplates.ts). */
  readonly endpointOf: readonly string[];
  /** Each row's call site: its origin chain ('' when unknown). */
  readonly siteOf: readonly string[];
  /** Each row's `uses`: earlier rows whose answers' values its request carried. */
  readonly usesOf: readonly (readonly number[])[];
  /** When calls were in flight, for the time a finding costs. */
  readonly timeline: Timeline;
}

/** The contract of a finding kind: a pure function of one capture's calls. */
export interface FindingRule {
  readonly kind: FindingKind;
  find(input: FindingInput): Finding[];
}
