import { contextScope } from '../runtime/scope';

/** One app call into a caching layer's fetch (see cacheLayerFetch), until the layer answers. */
export interface LayerCall {
  /** The layer called the fetch below it (a miss, or a stale entry revalidated in the background). */
  forwarded: boolean;
  /** The fetch below answered or failed: from then on the layer's answer may be the network's. */
  belowSettled: boolean;
}

/** In the OTel context: the layer awaits its cache before it calls the fetch below. */
export const layerCalls = contextScope<LayerCall>('probe.fetch.layer');

/**
 * Told by Probe's recording fetch of each promise it hands back: under a caching layer's call, that call went on
 * to the fetch below. Only the first call counts. Returns the promise, untouched.
 */
export function noteForwarded<P>(promise: P): P {
  const call = layerCalls.getStore();
  if (!call || call.forwarded) return promise;
  call.forwarded = true;
  const settle = () => void (call.belowSettled = true);
  // Both handlers given: the derived promise never rejects, and the caller keeps its own rejection to handle.
  if (promise instanceof Promise) promise.then(settle, settle);
  else call.belowSettled = true;
  return promise;
}
