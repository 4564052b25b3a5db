import { context, createContextKey, type Context } from '@opentelemetry/api';
import { patchMethod } from '../util/patches';

type Fn = (...args: unknown[]) => unknown;

/**
 * grpc-js starts a call's stream once its channel has resolved, connected and picked a subchannel. A call made
 * while the channel is not ready yet waits in the channel's queue, and every waiting call's stream is started
 * from the one connection event that readies it, in the async context of whichever call started the connection:
 * the others would take that call's unit and code line. The call's own metadata goes the whole way instead: grpc-js
 * copies it (`Metadata.prototype.clone`) when the call starts, inside the app's call, and every copy after that is
 * made from that one, down to the stream's headers (`toHttp2Headers`). Each copy made inside a call keeps the call's
 * context; the headers carry it, under a symbol Node neither sends nor reads, to the http2 lens, which starts the
 * stream's row in it (https://github.com/grpc/grpc-node/blob/master/packages/grpc-js/src/resolving-call.ts,
 * `start`; `transport.ts`, `createCall`).
 */

const IN_CALL = createContextKey('probe.grpc.call');
/** On the headers a call's metadata turns into: the call's context. Enumerable, so `session.request`'s copy keeps it. */
const CALL_CONTEXT = Symbol.for('probe.grpc.callContext');
/** Each metadata copy's call context, found when it was made. */
const contexts = new WeakMap<object, Context>();
/** Metadata classes hooked already (a package whose main module is reached by both require and import). */
const hooked = new WeakSet<object>();

/** Runs `fn` (a grpc-js client entry point) as a gRPC call: metadata copied inside it keeps this context. */
export function asGrpcCall<R>(fn: () => R): R {
  return context.with(context.active().setValue(IN_CALL, true), fn);
}

/** The context of the gRPC call whose stream was opened with these headers, or null. */
export function grpcCallContext(headers: object | undefined): Context | null {
  const found = headers ? (headers as Record<symbol, unknown>)[CALL_CONTEXT] : undefined;
  return found && typeof (found as Context).getValue === 'function' ? (found as Context) : null;
}

/** Hooks grpc-js's `Metadata` class; the undos of the patches made. */
export function hookGrpcMetadata(Metadata: unknown, why: string): Array<() => void> {
  const proto = typeof Metadata === 'function' ? (Metadata.prototype as Record<string, Fn> | undefined) : undefined;
  if (!proto || hooked.has(proto)) return [];
  hooked.add(proto);
  const undos: Array<() => void> = [];
  const clone = patchMethod(proto, 'clone', '@grpc/grpc-js Metadata.prototype.clone', why, (original) => {
    return function (this: object) {
      const copy = original.apply(this, arguments as unknown as unknown[]);
      try {
        const active = context.active();
        const found = contexts.get(this) ?? (active.getValue(IN_CALL) ? active : undefined);
        if (found && copy && typeof copy === 'object') contexts.set(copy, found);
      } catch {
        // the copy is grpc-js's either way
      }
      return copy;
    };
  });
  if (clone) undos.push(clone);
  const headers = patchMethod(proto, 'toHttp2Headers', '@grpc/grpc-js Metadata.prototype.toHttp2Headers', why, (original) => {
    return function (this: object) {
      const result = original.apply(this, arguments as unknown as unknown[]);
      try {
        const found = contexts.get(this);
        if (found && result && typeof result === 'object') (result as Record<symbol, unknown>)[CALL_CONTEXT] = found;
      } catch {
        // headers that cannot take it: the stream starts in the context it has
      }
      return result;
    };
  });
  if (headers) undos.push(headers);
  undos.push(() => hooked.delete(proto));
  return undos;
}
