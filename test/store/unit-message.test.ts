// Issue 28 (peak RSS): a unit handed to the store's thread moves the large chunks of its ended calls instead of
// copying them, so their memory leaves the app's thread when posted (the copies the recorder made would otherwise
// wait for a full garbage collection there). Tests, over a real MessageChannel: the chunks of an ended call move and
// are detached here once posted; small ones are copied into one buffer; a unit stored while it runs (status
// `running`) and a call still running keep theirs; the capture built from what arrives is the one built here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { CallInput, UnitInput } from '../../src/builder/input';
import { buildCapture } from '../../src/builder/buildCapture';
import { resolveConfig } from '../../src/config/resolve';
import { packUnit, unpackUnit } from '../../src/store/unitMessage';
import { callInput, T0, unitOf } from '../helpers/call-input';

const CONFIG = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { bodies: true } } }, env: {} });

/** A JSON body in chunks as BodyTap keeps them: each of 4 KB or more owns its ArrayBuffer (Buffer.from copies). */
/** As BodyTap copies a chunk of 16 KB or more: into an ArrayBuffer of its own (Node 24 pools Buffers under 32 KB). */
function ownBuffer(text: string): Buffer {
  const bytes = Buffer.from(text);
  const own = Buffer.from(new ArrayBuffer(bytes.length));
  bytes.copy(own);
  return own;
}

function jsonChunks(sizes: number[]): Buffer[] {
  const text = JSON.stringify({ items: Array.from({ length: 4000 }, (_, i) => ({ id: i, note: 'a record of a page' })) });
  const chunks: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    chunks.push(ownBuffer(text.slice(at, at + size)));
    at += size;
  }
  chunks.push(ownBuffer(text.slice(at)));
  return chunks;
}

const bodyCall = (chunks: Buffer[], over: Partial<CallInput> = {}): CallInput =>
  callInput({
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: { chunks, size: chunks.reduce((n, c) => n + c.length, 0), truncated: false },
    ...over,
  });

/** Posts the packed unit over a real channel, as ThreadedStore does, and reads it back as the thread does. */
function post(unit: UnitInput): { received: UnitInput; transfers: number } {
  const packed = packUnit(unit);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(packed.unit, packed.transfer);
  const received = unpackUnit(receiveMessageOnPort(port2)!.message as UnitInput);
  port1.close();
  return { received, transfers: packed.transfer.length };
}

test('the large chunks of an ended call move to the thread (detached here once posted); small ones are copied into one buffer', { timeout: 60_000 }, () => {
  const chunks = jsonChunks([20_000, 1_000, 2_000, 30_000]);
  // An empty chunk (as a stream may give) is left out: nothing else is copied beside it.
  const lone = post(unitOf([bodyCall([Buffer.alloc(0), ...jsonChunks([20_000])])]));
  assert.equal(lone.transfers, 2, 'both chunks moved, no buffer of copies');
  assert.equal(lone.received.calls[0]!.responseBody!.chunks.length, 2);
  const unit = unitOf([bodyCall(chunks)]);
  const expected = buildCapture(unpackUnit(structuredClone(unit)), CONFIG);
  const { received, transfers } = post(unit);
  // The 20 KB, 30 KB and last (about 90 KB) chunks moved; the 1 KB and 2 KB chunks copied into one buffer.
  assert.equal(transfers, 4);
  assert.equal(chunks[0]!.byteLength, 0, 'moved: gone from this thread');
  assert.equal(chunks[3]!.byteLength, 0, 'moved: gone from this thread');
  assert.equal(chunks[1]!.byteLength, 1_000, 'copied: the recorder keeps its own');
  // The two small chunks next to each other arrive as one view.
  assert.equal(received.calls[0]!.responseBody!.chunks.length, 4);
  assert.deepEqual(buildCapture(received, CONFIG), expected, 'the same capture as built from the recorded unit');
});

test('a unit stored while it runs, and a call still running, keep their chunks: nothing is moved', { timeout: 60_000 }, () => {
  const running = jsonChunks([20_000, 30_000]);
  const checkpoint = { ...unitOf([bodyCall(running)]), status: 'running' };
  const expected = buildCapture(unpackUnit(structuredClone(checkpoint)), CONFIG);
  const first = post(checkpoint);
  assert.equal(first.transfers, 1, 'one buffer holding copies');
  assert.ok(
    running.every((chunk) => chunk.byteLength > 0),
    'the running unit keeps its bytes',
  );
  assert.deepEqual(buildCapture(first.received, CONFIG), expected);

  const open = jsonChunks([20_000]);
  post(unitOf([bodyCall(open, { end: null })]));
  assert.ok(
    open.every((chunk) => chunk.byteLength > 0),
    'a call still running keeps its bytes',
  );
});

test('a chunk that is a view into a larger buffer, or seen twice, is copied, never moved', { timeout: 60_000 }, () => {
  const slab = Buffer.from(new ArrayBuffer(64 * 1024));
  slab.fill(0x61);
  const view = slab.subarray(0, 20_000);
  const own = ownBuffer('b'.repeat(20_000));
  const unit = unitOf([bodyCall([view], { spanId: 'a1' }), bodyCall([own], { spanId: 'a2' }), bodyCall([own], { spanId: 'a3', start: T0 + 1 })]);
  const { received, transfers } = post(unit);
  assert.equal(transfers, 2, 'the own buffer moved once, the rest copied into one');
  assert.equal(slab.byteLength, 64 * 1024, 'the slab stays');
  assert.equal(Buffer.concat(received.calls[0]!.responseBody!.chunks).toString(), 'a'.repeat(20_000));
  assert.equal(Buffer.concat(received.calls[1]!.responseBody!.chunks).toString(), 'b'.repeat(20_000));
  assert.equal(Buffer.concat(received.calls[2]!.responseBody!.chunks).toString(), 'b'.repeat(20_000));
});
