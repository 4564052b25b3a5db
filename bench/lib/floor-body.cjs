// The floor's copy of one body (bench/floor-preload.cjs): every chunk the client sends or receives is copied once,
// as it passes, into a buffer that owns its ArrayBuffer, so it can be transferred to the floor's thread without a
// second copy. Sized from content-length when the answer gives one; otherwise it doubles (amortised: under one more
// copy of each byte). Keeps at most Probe's default cap (lenses.HttpClientLens.max_body_bytes, 1 MiB) and counts the rest.
'use strict';

const CAP = 1_048_576;
const FIRST = 16 * 1024;

class FloorBody {
  constructor(expected = 0) {
    /** @type {Buffer | null} */
    this.buf = null;
    this.kept = 0;
    this.size = 0;
    this.expected = Math.min(expected, CAP);
    this.closed = false;
  }

  /** One chunk as the client passes it: bytes (a view the client may reuse: copied now) or a string. */
  add(chunk, encoding) {
    // Handed over already (the request it belongs to ended first, e.g. its client went away): its buffer is gone.
    if (this.closed) return;
    if (typeof chunk === 'string') {
      const length = Buffer.byteLength(chunk, encoding);
      this.size += length;
      const room = Math.min(length, CAP - this.kept);
      if (room <= 0) return;
      this.reserve(room);
      // Encoding the string into the kept buffer is the copy.
      this.kept += this.buf.write(chunk, this.kept, room, encoding);
      return;
    }
    if (!(chunk instanceof Uint8Array)) return;
    this.size += chunk.length;
    const room = Math.min(chunk.length, CAP - this.kept);
    if (room <= 0) return;
    this.reserve(room);
    this.buf.set(room === chunk.length ? chunk : chunk.subarray(0, room), this.kept);
    this.kept += room;
  }

  reserve(more) {
    const need = this.kept + more;
    if (this.buf && need <= this.buf.length) return;
    // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool, so it can be transferred.
    const size = this.buf ? this.buf.length * 2 : this.expected || FIRST;
    const grown = Buffer.allocUnsafeSlow(Math.min(CAP, Math.max(need, size)));
    if (this.buf) this.buf.copy(grown, 0, 0, this.kept);
    this.buf = grown;
  }

  /** What goes to the thread: the kept bytes (a view of the owned buffer) and the whole size seen. Closes the body. */
  toMessage() {
    this.closed = true;
    const bytes = this.buf ? this.buf.subarray(0, this.kept) : null;
    this.buf = null;
    return { bytes, size: this.size };
  }
}

module.exports = { FloorBody };
