import type { BodyInput, CallInput, UnitInput } from '../builder/input';

/** Bytes counted for a unit besides its bodies, and for each of its calls (headers, URL, timing, origin). */
const UNIT_BYTES = 4096;
const CALL_BYTES = 2048;

/** A unit ready to post to the store's thread: its bodies in fresh buffers, listed for transfer. */
export interface PackedUnit {
  unit: UnitInput;
  transfer: ArrayBuffer[];
  /** Body bytes plus a fixed estimate per unit and per call: what it holds in flight. */
  bytes: number;
}

/**
 * The unit with each kept body's chunks concatenated once into a buffer of its own, so postMessage can
 * transfer it instead of copying it. The recorder's chunks are left as they are: a unit stored while it runs
 * (the process's command capture) keeps its calls, and chunks under 4 KB are views into Node's shared pool,
 * which cannot be transferred. The packed unit is a valid UnitInput too (built here when the thread cannot).
 */
export function packUnit(unit: UnitInput): PackedUnit {
  const transfer: ArrayBuffer[] = [];
  let bytes = UNIT_BYTES;
  const pack = (body: BodyInput | null): BodyInput | null => {
    if (!body || body.chunks.length === 0) return body;
    let length = 0;
    for (const chunk of body.chunks) length += chunk.length;
    const whole = Buffer.from(new ArrayBuffer(length));
    let at = 0;
    for (const chunk of body.chunks) at += chunk.copy(whole, at);
    transfer.push(whole.buffer as ArrayBuffer);
    bytes += length;
    return { ...body, chunks: [whole] };
  };
  const calls = unit.calls.map((call): CallInput => {
    bytes += CALL_BYTES;
    return { ...call, requestBody: pack(call.requestBody), responseBody: pack(call.responseBody) };
  });
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
