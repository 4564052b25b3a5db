import type { JoinEntry } from '../runtime/join/Joiner';
import type { Source, SourceFactory } from '../runtime/UnitSource';

/**
 * A source of outgoing calls: one client (node:http, undici, fetch, node:http2…) observed in one file. It starts
 * each call with Recorder.beginCall and owns the state it keeps on it. start() loops over a list of lenses (see
 * Source for the rounds): nothing else names a lens.
 */
export interface Lens extends Source {
  /**
   * Instrumentation scopes whose client spans are this lens's calls: the recorder shows them as rows and leaves
   * the spans out of the timeline; the joiner gives its shadow spans the same names.
   */
  readonly scopes: readonly string[];
  /**
   * Beside the app's own OpenTelemetry setup, the app's instrumentations make the spans and Probe's stand aside:
   * the channels where the joiner then drives this lens instead (see Joiner).
   */
  readonly joins: readonly JoinEntry[];
}

export type LensFactory = SourceFactory<Lens>;
