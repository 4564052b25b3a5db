import type { BodyInput, CallInput, UnitInput } from '../builder/input';
import type { PostedUnit } from './unitParts';

/** Bytes counted for a unit besides its bodies, and for each of its calls (headers, URL, timing, origin). */
const UNIT_BYTES = 4096;
const CALL_BYTES = 2048;

/** A unit ready to post to the store's thread: its bodies in fresh buffers, listed for transfer. */
export interface PackedUnit {
  unit: PostedUnit;
  transfer: ArrayBuffer[];
  /** Body bytes plus a fixed estimate per unit and per call: what it holds in flight. */
  bytes: number;
}

/**
 * A chunk at least this long that owns its whole ArrayBuffer (BodyTap's copies of 4 KB and more do: smaller ones
 * are views into Node's shared pool) is moved to the thread as it is rather than copied into the unit's buffer.
 * Below it a copy costs less than a transfer's fixed cost.
 */
export const MOVE_MIN_BYTES = 16 * 1024;

/**
 * The unit ready to post: its kept bodies' small chunks copied once into one buffer of its own (each a view of it),
 * its large chunks moved, all listed for transfer, so postMessage copies no body. One buffer for the small ones, not
 * one per body: transferring an ArrayBuffer has a fixed cost of its own (measured: three transferred 60-byte bodies
 * cost the sending thread about 13 times what one buffer holding the three does, more than building the capture
 * there). Moving the large ones (peak RSS): a copy left the recorder's chunks to the app's garbage
 * collector, which frees them only at a full collection (they outlive the call, so they reach the old generation,
 * and V8 starts one for external memory only past 64 MiB of growth): at 50 KB answers the app's thread held tens of
 * MB of dead body copies. A transferred buffer's memory leaves this thread at once. Only chunks of a call that has
 * ended, in a unit that has ended, are moved: a unit stored while it runs (the process's command capture, status
 * `running`, `partial`, or handed in parts: unitParts.ts) keeps its calls, and stores them again. The packed unit is a valid UnitInput too (built here when the
 * thread cannot: nothing is detached until postMessage succeeds).
 */
export function packUnit(unit: PostedUnit): PackedUnit {
  // A unit in parts, or a version stored while it runs, keeps its calls: their inputs are handed or built again.
  const ended = !unit.partial && !unit.parts && unit.status !== 'running';
  const moved = new Set<ArrayBuffer>();
  const movable = (call: CallInput, chunk: Buffer): boolean =>
    ended &&
    call.end !== null &&
    chunk.byteLength >= MOVE_MIN_BYTES &&
    chunk.byteOffset === 0 &&
    chunk.buffer instanceof ArrayBuffer &&
    chunk.buffer.byteLength === chunk.byteLength;
  let copied = 0;
  let total = 0;
  for (const call of unit.calls) {
    for (const body of [call.requestBody, call.responseBody]) {
      if (!body) continue;
      for (const chunk of body.chunks) {
        total += chunk.length;
        // A buffer seen twice moves once (its views arrive sharing it, as here).
        if (moved.has(chunk.buffer as ArrayBuffer)) continue;
        if (movable(call, chunk)) moved.add(chunk.buffer as ArrayBuffer);
        else copied += chunk.length;
      }
    }
  }
  const whole = copied > 0 ? Buffer.from(new ArrayBuffer(copied)) : null;
  let at = 0;
  const pack = (body: BodyInput | null): BodyInput | null => {
    if (!body || body.chunks.length === 0 || (!whole && moved.size === 0)) return body;
    // Copied chunks next to each other become one view.
    const chunks: Buffer[] = [];
    let start = -1;
    for (const chunk of body.chunks) {
      // An empty chunk holds nothing to copy (and with every other chunk moved there is no buffer to copy into).
      if (chunk.length === 0) continue;
      if (moved.has(chunk.buffer as ArrayBuffer)) {
        if (start >= 0) chunks.push(whole!.subarray(start, at));
        start = -1;
        chunks.push(chunk);
        continue;
      }
      if (start < 0) start = at;
      at += chunk.copy(whole!, at);
    }
    if (start >= 0) chunks.push(whole!.subarray(start, at));
    return { ...body, chunks };
  };
  let bytes = UNIT_BYTES + total;
  const calls = unit.calls.map((call): CallInput => {
    bytes += CALL_BYTES;
    return { ...call, requestBody: pack(call.requestBody), responseBody: pack(call.responseBody) };
  });
  const transfer = [...moved];
  if (whole) transfer.push(whole.buffer as ArrayBuffer);
  return { unit: { ...unit, calls }, transfer, bytes };
}

/** On the store's thread: the bodies arrive as Uint8Arrays (structured clone drops Buffer's class). */
export function unpackUnit(unit: UnitInput): UnitInput {
  const asBuffers = (body: BodyInput | null): BodyInput | null =>
    body && { ...body, chunks: body.chunks.map((chunk: Uint8Array) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) };
  for (const call of unit.calls) {
    call.requestBody = asBuffers(call.requestBody);
    call.responseBody = asBuffers(call.responseBody);
  }
  return unit;
}
