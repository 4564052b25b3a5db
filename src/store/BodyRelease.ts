import type { PostedUnit } from './unitParts';

/**
 * On the store's thread: the body buffers a batch brought, released as soon as the units holding them are built
 * (peak RSS). A batch's units arrive at once and wait their turn to be built, long enough for the objects
 * of their received ArrayBuffers to be promoted to the old generation, whose collections are rare: measured at 50 KB
 * answers, the thread then held 19-24 MB of bodies already built and written (its external memory after each
 * batch). Detached, a buffer's memory goes at once. A unit in parts is never released: the thread keeps its calls
 * for its later versions (KeptParts). One per batch: a buffer is shared only within one message.
 */
export class BodyRelease {
  /** Per buffer: the units of the batch not yet built that hold it. */
  private readonly holders = new Map<ArrayBufferLike, number>();
  /** Buffers of units in parts (and any unit sharing them). */
  private readonly pinned = new Set<ArrayBufferLike>();

  /** A unit as it arrived (before KeptParts joins it): counts its buffers, or pins them when it comes in parts. */
  hold(unit: PostedUnit): void {
    for (const buffer of buffersOf(unit)) {
      if (unit.parts) this.pinned.add(buffer);
      else this.holders.set(buffer, (this.holders.get(buffer) ?? 0) + 1);
    }
  }

  /** The unit was built (or could not be): its buffers that no unit left to build holds are detached. */
  done(unit: PostedUnit): void {
    if (unit.parts) return;
    for (const buffer of buffersOf(unit)) {
      const left = (this.holders.get(buffer) ?? 1) - 1;
      if (left > 0) {
        this.holders.set(buffer, left);
        continue;
      }
      this.holders.delete(buffer);
      if (this.pinned.has(buffer)) continue;
      detach(buffer);
    }
  }
}

function buffersOf(unit: PostedUnit): Set<ArrayBufferLike> {
  const buffers = new Set<ArrayBufferLike>();
  for (const call of unit.calls) {
    for (const body of [call.requestBody, call.responseBody]) {
      for (const chunk of body?.chunks ?? []) if (chunk.byteLength > 0) buffers.add(chunk.buffer);
    }
  }
  return buffers;
}

/**
 * Moves the buffer's memory into a clone nobody keeps: a young object, freed at the thread's next scavenge. Node 20's
 * V8 has no ArrayBuffer.prototype.transfer(); structuredClone's transfer list detaches the same way.
 */
function detach(buffer: ArrayBufferLike): void {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
  try {
    structuredClone(buffer, { transfer: [buffer] });
  } catch {
    // Not detachable (a buffer V8 or Node holds on to): left to the collector.
  }
}
