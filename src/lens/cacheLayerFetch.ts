import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import type { Unit } from '../runtime/Unit';
import { now } from '../runtime/clock';
import { currentEntry, enterLibrary, type EntryStack } from '../origin/entry';
import { FetchCall } from './FetchCall';
import { answeredInMemory, fetchTarget } from './fetch';
import { layerCalls, type LayerCall } from './fetchLayer';

/** What a cache hit's row needs from the moment the app called. */
interface HitStart {
  unit: Unit;
  start: number;
  method: string;
  url: string;
  entry: EntryStack | null;
}

/**
 * A caching layer's fetch (Next.js's patched fetch with its data cache) seen from above. The app's call is a
 * library entry: its stack is taken here, where the app's own frame is the caller, for the row Probe's fetch
 * below records after the layer's awaits (a miss: the same row as without the layer). When the layer answers
 * without having called the fetch below, or before that fetch settled (a stale entry served while it revalidates
 * in the background: that request is a row of its own), the answer came from the layer's cache: a row with
 * `cache: 'hit'` and no timing. A call the layer rejects or never settles without a request (its own control
 * flow) is no row.
 */
export function cacheLayerFetch(layer: typeof fetch, recorder: Recorder, logger: Logger): typeof fetch {
  const layerFetch = function fetch(this: unknown, input: string | URL | Request, init?: RequestInit): Promise<Response> {
    let hit: HitStart | null = null;
    try {
      hit = hitStart(recorder, input, init);
    } catch (error) {
      logger.warnOnce('fetch-layer', 'could not watch a cached fetch call', error);
    }
    if (!hit) return layer.call(this, input, init);
    const started = hit;
    const call: LayerCall = { forwarded: false, belowSettled: false };
    let ran = false;
    let promise: Promise<Response>;
    try {
      promise = layerCalls.run(call, () =>
        enterLibrary(() => {
          started.entry = currentEntry();
          ran = true;
          return layer.call(this, input, init);
        }, layerFetch),
      );
    } catch (error) {
      if (ran) throw error; // the layer's own error, to the app as it is
      return layer.call(this, input, init);
    }
    if (!(promise instanceof Promise)) return promise;
    promise.then(
      (response) => {
        if (call.forwarded && call.belowSettled) return;
        try {
          recordHit(recorder, started, response, input, init, logger);
        } catch (error) {
          logger.warnOnce('fetch-layer-hit', 'could not record a cached fetch answer', error);
        }
      },
      () => {},
    );
    return promise;
  };
  return layerFetch as typeof fetch;
}

function hitStart(recorder: Recorder, input: string | URL | Request, init: RequestInit | undefined): HitStart | null {
  const unit = recorder.activeUnit();
  if (!unit.sampled) return null;
  const target = fetchTarget(input, init);
  return target ? { unit, start: now(), ...target, entry: null } : null;
}

function recordHit(
  recorder: Recorder,
  started: HitStart,
  response: Response,
  input: string | URL | Request,
  init: RequestInit | undefined,
  logger: Logger,
): void {
  const { unit, method, url, start, entry } = started;
  // No stack of its own: the answer comes after the layer's awaits; the entry taken at the call names the line.
  const record = recorder.beginCall(unit, { method, url, entry, stack: null, start, clientDecodes: true }, (max) => new FetchCall(max, start));
  record.settled = true;
  record.markCacheHit();
  answeredInMemory(record, response, input, init, null, logger);
}
