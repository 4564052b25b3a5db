import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { decodeContent } from '../../src/builder/body';
import { resolveConfig } from '../../src/config/resolve';
import type { CallInput } from '../../src/builder/input';
import { callInput, rowOf } from '../helpers/call-input';

// The pure half of max_body_bytes after decoding: what the builder does with the kept wire bytes.

const CAP = 2000;
const config = (bodies: boolean) =>
  resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { bodies, max_body_bytes: CAP } } }, env: {} });
const RAW = Buffer.from(JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, password: 'hunter2' })) }));
const zstd = zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer };
const ENCODED: Array<[string, Buffer]> = [
  ['gzip', zlib.gzipSync(RAW)],
  ['br', zlib.brotliCompressSync(RAW)],
  ['deflate', zlib.deflateSync(RAW)],
  ['deflate', zlib.deflateRawSync(RAW)],
  ...(zstd.zstdCompressSync ? [['zstd', zstd.zstdCompressSync(RAW)] as [string, Buffer]] : []),
];

function row(encoding: string, wire: Buffer, over: Partial<CallInput> & { bodies?: boolean } = {}) {
  const { bodies = false, ...rest } = over;
  return rowOf(
    callInput({
      responseHeaders: { 'content-type': 'application/json', 'content-encoding': encoding },
      responseBody: { chunks: [wire], size: wire.length, truncated: false },
      ...rest,
    }),
    config(bodies),
  );
}

test('a body under the cap on the wire that decodes past it: truncated, no capture, its decoded start as response_body', () => {
  for (const [encoding, wire] of ENCODED) {
    assert.ok(wire.length < CAP && RAW.length > CAP, `${encoding}: under the cap on the wire only`);
    const kept = row(encoding, wire, { bodies: true });
    assert.equal(kept.truncated, true, encoding);
    assert.equal(kept.response_capture, null, encoding);
    // zstd decodes a block (up to 128 KiB) at a time: a start cut inside this one-block body decodes to nothing.
    const least = encoding === 'zstd' ? 0 : CAP / 4;
    // The kept start is masked as text (it does not parse): each password, even one the cut falls in.
    assert.ok(!kept.response_body!.includes('hunter'), `${encoding}: masked`);
    const unmasked = kept.response_body!.replaceAll('"********', '"hunter2');
    assert.ok(unmasked.length >= least && unmasked.length <= CAP + 7, `${encoding}: ${unmasked.length} chars kept`);
    assert.ok(RAW.toString().startsWith(unmasked), `${encoding}: the start of the decoded body`);
    const plain = row(encoding, wire);
    assert.equal(plain.truncated, true, encoding);
    assert.equal(plain.response_body, null, encoding);
  }
});

test('response_bytes past the cap: the count made while streaming, else a whole gzip body’s trailer, else the wire size', () => {
  const gzip = zlib.gzipSync(RAW);
  assert.equal(row('gzip', gzip).response_bytes, RAW.length, 'gzip trailer');
  assert.equal(row('gzip', gzip, { clientDecodes: false }).response_bytes, gzip.length, 'the app read the wire bytes');
  const br = zlib.brotliCompressSync(RAW);
  assert.equal(row('br', br).response_bytes, br.length, 'br without a count');
  const counted = { chunks: [br], size: br.length, truncated: false, decodedSize: RAW.length };
  assert.equal(row('br', br, { responseBody: counted }).response_bytes, RAW.length, 'br counted');
  // Cut on the wire: a gzip trailer is not there to read.
  const cut = { chunks: [gzip.subarray(0, 200)], size: gzip.length, truncated: true };
  assert.equal(row('gzip', gzip, { responseBody: cut }).response_bytes, gzip.length);
  assert.equal(row('gzip', gzip, { responseBody: cut }).truncated, true);
});

test('decoding stops at the cap: a 64 MiB bomb gives its start, at most the cap, or nothing when no start is wanted', () => {
  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const none = decodeContent(bomb, 'gzip', 1024 * 1024, false, false);
  assert.deepEqual(none && { whole: none.whole, length: none.bytes.length }, { whole: false, length: 0 });
  const start = decodeContent(bomb, 'gzip', 1024 * 1024, false, true);
  assert.equal(start?.whole, false);
  assert.ok(start!.bytes.length > 256 * 1024 && start!.bytes.length <= 1024 * 1024, `${start!.bytes.length} bytes`);
  assert.ok(start!.bytes.every((b) => b === 0));
  // Whole bodies under the cap and corrupt ones as before.
  assert.deepEqual(decodeContent(zlib.gzipSync('{"a":1}'), 'gzip', 100)?.bytes.toString(), '{"a":1}');
  assert.equal(decodeContent(Buffer.from('not gzip at all'), 'gzip', 100), null);
  assert.equal(decodeContent(Buffer.from('x'), 'compress', 100), null);
});
