import type { DecodedExport } from './model';
import { OtlpDecodeError } from './model';
import type { IdReader } from './normalize';
import { normalizeExport } from './normalize';

/** OTLP/JSON writes trace and span ids as hex (not base64 as plain protobuf JSON would), bytes values as base64. */
export const JSON_IDS: IdReader = {
  id(value) {
    if (value === undefined || value === null || value === '') return '';
    return typeof value === 'string' && /^[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : null;
  },
  bytes(value) {
    return typeof value === 'string' ? value : null;
  },
};

/** Decodes an OTLP/JSON `ExportTraceServiceRequest` body (already decompressed). */
export function decodeJsonExport(body: Buffer): DecodedExport {
  return normalizeExport(parseJsonExport(body), JSON_IDS);
}

/** The body as a plain object, for `normalizeSteps` (the receiver turns it into spans in slices). */
export function parseJsonExport(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    // A RangeError here is a nesting too deep for the parser: still the sender's fault.
    throw new OtlpDecodeError(`invalid JSON: ${(error as Error).message}`);
  }
}
