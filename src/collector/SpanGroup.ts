import type { CaptureType } from '../capture/types';
import type { OtlpSpan } from './model';

/**
 * The spans of one unit of work, as the assembler found them: a SERVER root (`request`), a CONSUMER root
 * (`job`), or the rootless spans of one process (`command`, root null).
 */
export interface SpanGroup {
  type: CaptureType;
  root: OtlpSpan | null;
  /** Every span of the unit, the root included. */
  spans: OtlpSpan[];
}
