import type { BodyInput } from '../builder/input';
import { MOVE_MIN_BYTES } from '../store/unitMessage';

/**
 * When to start counting a body's decoded size (wire bytes seen), and the counter to start. The counter
 * calls `settled` once, with the size, or undefined when it could not tell (corrupt, cut off, fell behind).
 */
export interface DecodedCount {
  from: number;
  start(settled: (size: number | undefined) => void): SizeCounter;
}

/** Counts the decoded size of a body fed in wire chunks. */
export interface SizeCounter {
  write(chunk: Buffer): void;
  end(): void;
}

/**
 * Counts every byte of a body and keeps a copy of the first `cap` bytes. Copies, because the chunks belong
 * to the client's stream and may be reused after the callback returns.
 */
export class BodyTap {
  readonly chunks: Buffer[] = [];
  size = 0;
  kept = 0;
  truncated = false;
  /** The decoded size, once a counter settled on it: plain data for the builder. */
  decodedSize: number | undefined;
  private counting: DecodedCount | null = null;
  private counter: SizeCounter | null = null;
  /** A started counter whose body ended and that has not settled yet; then who waits for it. */
  private finishing = false;
  private onSettled: (() => void) | null = null;

  constructor(private readonly cap: number) {}

  /**
   * The client decodes this body (content-encoding), so its decoded size is wanted. The builder decodes a
   * kept body itself (up to cap); a counter starts only once the wire size passes `count.from`, when the
   * kept bytes may not tell, and is fed what was kept so far. Null: a coding Probe cannot decode.
   */
  decodeWith(count: DecodedCount | null): void {
    this.counting = count;
  }

  add(chunk: unknown, encoding?: BufferEncoding): void {
    let bytes: Buffer;
    if (typeof chunk === 'string') bytes = Buffer.from(chunk, encoding && Buffer.isEncoding(encoding) ? encoding : 'utf8');
    // A Buffer is only read here (what is kept is copied below): no view of it is made.
    else if (Buffer.isBuffer(chunk)) bytes = chunk;
    else if (chunk instanceof Uint8Array) bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    else return;
    this.size += bytes.length;
    const room = this.cap - this.kept;
    let copy: Buffer | null = null;
    if (room <= 0) {
      if (bytes.length) this.truncated = true;
    } else {
      const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
      if (part.length < bytes.length) this.truncated = true;
      // A copy packUnit may move owns its whole ArrayBuffer: Buffer.from takes one from Node's pool below half
      // Buffer.poolSize, which Node 24 raised from 8 KB to 64 KB, so a 20 KB copy was a slice there, never moved.
      copy = part.length >= MOVE_MIN_BYTES ? ownCopy(part) : Buffer.from(part);
      this.chunks.push(copy);
      this.kept += part.length;
    }
    if (this.counting) this.count(bytes, copy);
  }

  private count(bytes: Buffer, copy: Buffer | null): void {
    if (!this.counter) {
      if (this.size <= this.counting!.from) return;
      this.counter = this.counting!.start((size) => this.settle(size));
      // What was kept so far, this chunk's kept part included.
      for (const kept of this.chunks) this.counter.write(kept);
    } else if (copy) {
      this.counter.write(copy);
    }
    const rest = bytes.length - (copy?.length ?? 0);
    if (rest > 0) this.counter.write(Buffer.from(bytes.subarray(bytes.length - rest)));
  }

  /** The body ended (or failed): a running counter gets its last input, and settles on the thread pool. */
  end(): void {
    if (!this.counter) return;
    this.finishing = true;
    this.counter.end();
  }

  private settle(size: number | undefined): void {
    this.decodedSize = size;
    const settled = this.finishing ? this.onSettled : null;
    this.finishing = false;
    this.onSettled = null;
    settled?.();
  }

  /** The body ended and its decoded size is still being counted on the thread pool (its input will change). */
  get settling(): boolean {
    return this.finishing;
  }

  /**
   * The body ended and its decoded size is still being counted: `then` runs once it is known (the recorder
   * holds the unit's input until then). False, and `then` never runs, when nothing is left to wait for.
   */
  whenCounted(then: () => void): boolean {
    if (!this.finishing) return false;
    this.onSettled = then;
    return true;
  }

  toInput(): BodyInput {
    const input: BodyInput = { chunks: this.chunks, size: this.size, truncated: this.truncated };
    if (this.counting) input.decodedSize = this.decodedSize;
    return input;
  }
}

/**
 * The tap of a call that is only counted (it started past its unit's row cap: see Recorder.beginCall): a folded call
 * is totals, never a row, so none of its bytes are kept or sized. Shared: it holds no state.
 */
class CountedTap extends BodyTap {
  override add(): void {}
  override decodeWith(): void {}
  override toInput(): BodyInput {
    return { chunks: [], size: 0, truncated: false };
  }
}
export const COUNTED_TAP: BodyTap = new CountedTap(0);

/** A copy in an ArrayBuffer of its own (transferable to the store's thread). */
function ownCopy(part: Buffer): Buffer {
  const copy = Buffer.from(new ArrayBuffer(part.length));
  part.copy(copy);
  return copy;
}
