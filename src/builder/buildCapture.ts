// Placeholder signature: the builder is being written (issue 2). Collector and runtime call this.
import type { Capture } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import type { UnitInput } from './input';

/** Turns one recorded unit of work into a stored capture record: masking, rows, summary, spans. Pure. */
export function buildCapture(_unit: UnitInput, _config: ResolvedConfig): Capture {
  throw new Error('buildCapture: not implemented yet');
}
