import type { BodyInput } from '../builder/input';

/**
 * Counts every byte of a body and keeps a copy of the first `cap` bytes. Copies, because the chunks belong
 * to the client's stream and may be reused after the callback returns.
 */
export class BodyTap {
  readonly chunks: Buffer[] = [];
  size = 0;
  kept = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  add(chunk: unknown, encoding?: BufferEncoding): void {
    let bytes: Buffer;
    if (typeof chunk === 'string') bytes = Buffer.from(chunk, encoding && Buffer.isEncoding(encoding) ? encoding : 'utf8');
    else if (chunk instanceof Uint8Array) bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    else return;
    this.size += bytes.length;
    const room = this.cap - this.kept;
    if (room <= 0) {
      if (bytes.length) this.truncated = true;
      return;
    }
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    if (part.length < bytes.length) this.truncated = true;
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  /** A complete body handed over at once (a fake's in-memory body). */
  static of(bytes: Buffer, cap: number): BodyTap {
    const tap = new BodyTap(cap);
    tap.add(bytes);
    return tap;
  }

  toInput(): BodyInput {
    return { chunks: this.chunks, size: this.size, truncated: this.truncated };
  }
}
