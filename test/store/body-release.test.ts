// Issue 28 (peak RSS): on the store's thread, a batch's body buffers are detached as soon as the units holding them
// are built (BodyRelease), instead of waiting for the thread's full collection. Tests: a unit's buffers go once it is
// built, over a real MessageChannel as the thread receives them, and its capture is the one built before; a buffer
// two units share goes only after both; a unit in parts keeps its buffers (the thread keeps its calls), and so does a
// unit sharing one of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { CallInput, UnitInput } from '../../src/builder/input';
import { buildCapture } from '../../src/builder/buildCapture';
import { resolveConfig } from '../../src/config/resolve';
import { BodyRelease } from '../../src/store/BodyRelease';
import { packUnit, unpackUnit } from '../../src/store/unitMessage';
import type { PostedUnit } from '../../src/store/unitParts';
import { callInput, unitOf } from '../helpers/call-input';

const CONFIG = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { bodies: true } } }, env: {} });

/** A chunk in an ArrayBuffer of its own, as BodyTap copies one of 16 KB or more. */
function own(text: string): Buffer {
  const bytes = Buffer.from(text);
  const copy = Buffer.from(new ArrayBuffer(bytes.length));
  bytes.copy(copy);
  return copy;
}

const page = (seed: number) => JSON.stringify({ items: Array.from({ length: 1200 }, (_, id) => ({ id, seed, note: 'a record of a page' })) });

const bodyCall = (chunks: Buffer[], over: Partial<CallInput> = {}): CallInput =>
  callInput({
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: { chunks, size: chunks.reduce((n, c) => n + c.length, 0), truncated: false },
    ...over,
  });

/** As the thread receives a unit: packed, posted over a real channel, unpacked. */
function received(unit: UnitInput): PostedUnit {
  const packed = packUnit(unit);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(packed.unit, packed.transfer);
  const out = unpackUnit(receiveMessageOnPort(port2)!.message as UnitInput);
  port1.close();
  return out;
}

const lengths = (unit: UnitInput) => unit.calls.flatMap((call) => call.responseBody!.chunks.map((chunk) => chunk.buffer.byteLength));

test("a unit's body buffers are detached once it is built, and its capture is the one built before", { timeout: 60_000 }, () => {
  // One large chunk (moved) and two small ones (copied into the unit's one buffer).
  const unit = unitOf([bodyCall([own(page(1))], { spanId: 'a1' }), bodyCall([Buffer.from('{"a":'), Buffer.from('1}')], { spanId: 'a2' })]);
  const expected = buildCapture(unpackUnit(structuredClone(unit)), CONFIG);
  const there = received(unit);
  const bodies = new BodyRelease();
  bodies.hold(there);
  assert.ok(
    lengths(there).every((n) => n > 0),
    'held while waiting to be built',
  );
  const capture = buildCapture(there, CONFIG);
  bodies.done(there);
  // The moved chunk, and the one buffer of copies (the two small chunks arrive as one view of it).
  assert.deepEqual(lengths(there), [0, 0], 'every buffer detached');
  assert.deepEqual(capture, expected);
  assert.equal(JSON.stringify(capture), JSON.stringify(expected), 'the capture holds no view of the released buffers');
});

test('a buffer two units share goes after the second is built; a unit in parts keeps its own and what it shares', { timeout: 60_000 }, () => {
  const shared = own(page(2));
  const first = unitOf([bodyCall([shared])]) as PostedUnit;
  const second = { ...unitOf([bodyCall([shared])]), id: 'cap_00000002' } as PostedUnit;
  const bodies = new BodyRelease();
  bodies.hold(first);
  bodies.hold(second);
  bodies.done(first);
  assert.equal(shared.buffer.byteLength, shared.length, 'the second unit still holds it');
  bodies.done(second);
  assert.equal(shared.buffer.byteLength, 0, 'released with the last unit holding it');

  const kept = own(page(3));
  const alone = own(page(4));
  const inParts: PostedUnit = { ...unitOf([bodyCall([kept])]), id: 'cap_00000003', parts: { keys: [1], fresh: [1], last: false } };
  const beside = { ...unitOf([bodyCall([kept], { spanId: 'b1' }), bodyCall([alone], { spanId: 'b2' })]), id: 'cap_00000004' } as PostedUnit;
  const batch = new BodyRelease();
  batch.hold(inParts);
  batch.hold(beside);
  batch.done(beside);
  batch.done(inParts);
  assert.equal(kept.buffer.byteLength, kept.length, "a unit in parts keeps its calls' buffers, shared or not");
  assert.equal(alone.buffer.byteLength, 0, 'what only the whole unit held is released');
});
