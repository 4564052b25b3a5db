import type { TracerProvider } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { ResolvedConfig } from '../config/types';
import type { Logger } from '../util/logger';
import type { Recorder } from './Recorder';
import type { Joiner } from './join/Joiner';

/** A diagnostics channel subscription that never throws into the publisher; returns its undo. */
export type Subscribe = (name: string, handler: (message: unknown) => void) => () => void;

/** What start() hands every source of calls (a Lens) and of units (a UnitSource) it makes. */
export interface SourceHost {
  readonly config: ResolvedConfig;
  readonly recorder: Recorder;
  readonly logger: Logger;
  /** Probe's own tracer provider (never registered): its instrumentations make spans there. */
  readonly provider: TracerProvider;
  readonly joiner: Joiner;
  readonly subscribe: Subscribe;
}

/**
 * What start() does with every source, in two rounds over its list: first each source's OpenTelemetry
 * instrumentations are registered on Probe's provider (all at once), then each source is enabled, in list order.
 * A source is made (its factory runs) before either round, also in list order: a constructor may hook the ESM
 * loader, and the loader takes only the modules listed when it is registered (see esmHook).
 */
export interface Source {
  /** For PROBE_DEBUG and errors. */
  readonly name: string;
  /** Probe's own mode: instrumentations registered on Probe's provider (InstrumentationBase enables them). */
  readonly instrumentations: readonly Instrumentation[];
  /** Turns on what is not an instrumentation (channels, patches through the ledger); returns its undo. */
  enable(): () => void;
}

/**
 * A source of units of work (incoming requests, jobs and queue consumers, tests, threads): it tells the recorder
 * when a unit starts and ends (Recorder.beginTest / endTest, a span the recorder maps to a unit, or the facts of a
 * unit it opened), and nothing else. Adding one is a file and its tests, and a line in start.ts's list.
 */
export type UnitSource = Source;

/** Makes a source for this process, or null when it has nothing to do here (its setting is off). */
export type SourceFactory<S extends Source = Source> = (host: SourceHost) => S | null;
