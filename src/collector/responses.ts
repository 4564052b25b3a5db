import { otlpTypes } from './otlpProto';

export type WireFormat = 'json' | 'protobuf';

/** `google.rpc.Code` values used in error bodies. */
export const RpcCode = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, UNAUTHENTICATED: 16 } as const;

export interface OtlpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const CONTENT_TYPE: Record<WireFormat, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };

/** 200 with an `ExportTraceServiceResponse`: empty, or with `partial_success` when spans were rejected. */
export function exportResponse(format: WireFormat, rejected: number, message: string | null): OtlpResponse {
  const partial = rejected > 0 ? { rejectedSpans: rejected, errorMessage: message ?? '' } : null;
  let body: Buffer;
  if (format === 'json') {
    // int64 goes out as a decimal string in the OTLP JSON mapping.
    body = Buffer.from(JSON.stringify(partial ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage: partial.errorMessage } } : {}));
  } else {
    const { ExportTraceServiceResponse } = otlpTypes();
    body = Buffer.from(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(partial ? { partialSuccess: partial } : {})).finish());
  }
  return { status: 200, headers: { 'content-type': CONTENT_TYPE[format] }, body };
}

/** An error answer: a `google.rpc.Status` body in the request's format (JSON when it had none we know). */
export function statusResponse(status: number, code: number, message: string, format: WireFormat = 'json', headers: Record<string, string> = {}): OtlpResponse {
  let body: Buffer;
  if (format === 'json') body = Buffer.from(JSON.stringify({ code, message }));
  else {
    const { Status } = otlpTypes();
    body = Buffer.from(Status.encode(Status.fromObject({ code, message })).finish());
  }
  return { status, headers: { 'content-type': CONTENT_TYPE[format], ...headers }, body };
}
