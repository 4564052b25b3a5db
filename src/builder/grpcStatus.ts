import type { CallInput } from './input';

/** A gRPC call's outcome as its server said it (`grpc-status`, `grpc-message`), whatever the HTTP status. */
export interface GrpcStatus {
  code: number;
  /** The code's name from the gRPC specification (`NOT_FOUND`), or `CODE_<n>` for a code it does not list. */
  name: string;
  /** The server's `grpc-message`, percent-decoded; null when it sent none. */
  message: string | null;
}

// https://github.com/grpc/grpc/blob/master/doc/statuscodes.md
const NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

export type GrpcInput = Pick<CallInput, 'responseHeaders' | 'responseTrailers'>;

/**
 * The status of a gRPC response: in its trailers, or in its headers for a trailers-only response (how servers
 * answer an error before any message). Null for a response that is not gRPC's. HTTP says 200 either way.
 */
export function grpcStatus(call: GrpcInput): GrpcStatus | null {
  const source = call.responseTrailers?.['grpc-status'] !== undefined ? call.responseTrailers : call.responseHeaders;
  const raw = first(source?.['grpc-status']);
  if (raw === undefined || !/^\d{1,3}$/.test(raw.trim())) return null;
  const code = Number(raw.trim());
  const text = first(source?.['grpc-message']);
  return { code, name: NAMES[code] ?? `CODE_${code}`, message: text === undefined ? null : decodeMessage(text) };
}

/** Whether the call's gRPC status says it failed (any code but OK). */
export function grpcFailed(call: GrpcInput): boolean {
  const status = grpcStatus(call);
  return status !== null && status.code !== 0;
}

function first(value: string | string[] | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value[0] : String(value);
}

/** `grpc-message` is percent-encoded (gRPC over HTTP/2, "Responses"). */
function decodeMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
