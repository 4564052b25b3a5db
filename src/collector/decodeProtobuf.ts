import type { DecodedExport } from './model';
import { OtlpDecodeError } from './model';
import type { IdReader } from './normalize';
import { normalizeExport } from './normalize';
import { otlpTypes } from './otlpProto';

export const PROTO_IDS: IdReader = {
  id(value) {
    if (value === undefined || value === null) return '';
    return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') : null;
  },
  bytes(value) {
    return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : null;
  },
};

/** Decodes a binary protobuf `ExportTraceServiceRequest` body (already decompressed) with protobufjs. */
export function decodeProtobufExport(body: Buffer): DecodedExport {
  return normalizeExport(parseProtobufExport(body), PROTO_IDS);
}

/** The body as a plain object, for `normalizeSteps` (the receiver turns it into spans in slices). */
export function parseProtobufExport(body: Buffer): unknown {
  const { ExportTraceServiceRequest } = otlpTypes();
  try {
    const message = ExportTraceServiceRequest.decode(body);
    // 64-bit integers as decimal strings (no precision loss), enums as numbers, bytes left as bytes.
    return ExportTraceServiceRequest.toObject(message, { longs: String, enums: Number });
  } catch (error) {
    throw new OtlpDecodeError(`invalid protobuf: ${(error as Error).message}`);
  }
}
