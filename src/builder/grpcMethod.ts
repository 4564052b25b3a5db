import type { CallInput } from './input';
import { headerValue } from './body';

/** The gRPC method a call asked for: `users.Users` and `GetUser` of `/users.Users/GetUser`. */
export interface GrpcMethod {
  service: string;
  method: string;
}

/** A gRPC request's content type: `application/grpc`, `+proto`, `+json`, gRPC-Web's (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). */
const GRPC_TYPE = /^application\/grpc(?:-web(?:-text)?)?(?:\+[a-z0-9.-]+)?\s*(?:;|$)/i;
/**
 * The request path, `/<service>/<method>` (PROTOCOL-HTTP2.md, "Path"): a service is a dotted, fully qualified
 * protobuf name and a method a protobuf identifier, bounded; nothing else names a row.
 */
const PATH = /^\/([A-Za-z_][A-Za-z0-9_]{0,99}(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,19})\/([A-Za-z_][A-Za-z0-9_]{0,99})$/;

export type GrpcMethodInput = Pick<CallInput, 'url' | 'requestHeaders'>;

/**
 * The service and method of a gRPC call, read off the request by the protocol's own rule (its content type, its
 * path), whatever client made it; null for a call that is not gRPC or whose path names no method.
 */
export function grpcMethod(call: GrpcMethodInput): GrpcMethod | null {
  const type = headerValue(call.requestHeaders, 'content-type');
  if (!type || !GRPC_TYPE.test(type)) return null;
  let path: string;
  try {
    path = new URL(call.url).pathname;
  } catch {
    return null;
  }
  const match = PATH.exec(path);
  return match ? { service: match[1]!, method: match[2]! } : null;
}
