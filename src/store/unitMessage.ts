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
 * The unit with its kept bodies copied once into one buffer of its own (each body a view of it), so postMessage
 * transfers that buffer instead of copying it. One buffer per unit, not one per body: transferring an
 * ArrayBuffer has a fixed cost of its own (measured: three transferred 60-byte bodies cost the sending thread
 * about 13 times what one buffer holding the three does, more than building the capture there), which made the
 * move to the store's thread cost more CPU than it saved at small bodies. The recorder's chunks are left as they
 * are: a unit stored while it runs (the process's command capture) keeps its calls, and chunks under 4 KB are
 * views into Node's shared pool, which cannot be transferred. The packed unit is a valid UnitInput too (built here
 * when the thread cannot).
 */
export function packUnit(unit: PostedUnit): PackedUnit {
  let total = 0;
  for (const call of unit.calls) total += bodyLength(call.requestBody) + bodyLength(call.responseBody);
  const whole = total > 0 ? Buffer.from(new ArrayBuffer(total)) : null;
  let at = 0;
  const pack = (body: BodyInput | null): BodyInput | null => {
    if (!body || body.chunks.length === 0 || !whole) return body;
    const start = at;
    for (const chunk of body.chunks) at += chunk.copy(whole, at);
    return { ...body, chunks: [whole.subarray(start, at)] };
  };
  let bytes = UNIT_BYTES + total;
  const calls = unit.calls.map((call): CallInput => {
    bytes += CALL_BYTES;
    return { ...call, requestBody: pack(call.requestBody), responseBody: pack(call.responseBody) };
  });
  return { unit: { ...unit, calls }, transfer: whole ? [whole.buffer as ArrayBuffer] : [], bytes };
}

function bodyLength(body: BodyInput | null): number {
  let length = 0;
  if (body) for (const chunk of body.chunks) length += chunk.length;
  return length;
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
