import { lazyModule } from '../util/lazyModule';
import type { Transform } from 'node:stream';
import type { DecodedCount, SizeCounter } from '../runtime/BodyTap';
import { isProbeCode } from '../util/ownCode';

/** Libraries that decode `content-encoding` themselves over node:http (their default settings). */
const DECODING_CLIENTS = /[\\/]node_modules[\\/](?:axios|got|node-fetch|superagent)[\\/]/;

/**
 * True when a frame between node:http and the app's own code belongs to a client that decodes the body.
 * The scan stops at the first app frame: the app's callers do not make this request.
 */
export function decodingClientOnStack(stack: NodeJS.CallSite[] | null): boolean {
  if (!stack) return false;
  for (const site of stack) {
    const file = site.getFileName();
    if (!file) continue;
    if (DECODING_CLIENTS.test(file)) return true;
    if (!file.includes('node_modules') && !file.startsWith('node:') && !isProbeCode(file)) return false;
  }
  return false;
}

/** Without call sites (origins off): the user-agent these clients send unless the app sets its own. */
export function decodingClientAgent(userAgent: unknown): boolean {
  const value = Array.isArray(userAgent) ? userAgent[0] : userAgent; // node-fetch sets header values as arrays
  return typeof value === 'string' && /^(?:axios|got|node-fetch)\b/i.test(value);
}

type Open = (first: Buffer) => Transform;

// Loaded with the first encoded body counted, not with the preload.
const zlib = lazyModule(() => require('node:zlib') as typeof import('node:zlib'));
const body = lazyModule(() => require('../builder/body') as typeof import('../builder/body'));
const zstd = () => zlib() as unknown as { createZstdDecompress?: () => Transform };

const OPENERS: Record<string, Open> = {
  gzip: () => zlib().createGunzip(),
  'x-gzip': () => zlib().createGunzip(),
  br: () => zlib().createBrotliDecompress(),
  deflate: (first) => (zlibWrapped(first) ? zlib().createInflate() : zlib().createInflateRaw()),
  // Node 22.15 / 23.8 and later. Without it a zstd body keeps its wire size (README, known limits).
  zstd: () => zstd().createZstdDecompress!(),
};

/**
 * How to count the decoded size of a body in one `content-encoding` as it streams, or null for codings it
 * cannot decode (the row keeps the wire size). The builder decodes a kept body up to `cap`, and a gzip body
 * kept whole states its size in its trailer, so gzip is counted only once it passes the cap on the wire.
 * br, deflate and zstd are counted from cap / 64 on: past the cap decoded, a smaller body keeps its wire size.
 */
export function decodedCount(encoding: string, cap: number): DecodedCount | null {
  const codings = body().contentCodings(encoding);
  if (codings.length !== 1 || !Object.hasOwn(OPENERS, codings[0]!)) return null;
  const coding = codings[0]!;
  if (coding === 'zstd' && !zstd().createZstdDecompress) return null;
  const open = OPENERS[coding]!;
  const gzip = coding === 'gzip' || coding === 'x-gzip';
  // Input waiting for the thread pool is bounded too: a counter that falls this far behind gives up.
  const pending = cap + PENDING_INPUT;
  return { from: gzip ? cap : Math.floor(cap / 64), start: (settled) => new ZlibCounter(open, pending, settled) };
}

const PENDING_INPUT = 4 * 1024 * 1024;

/** `deflate` is meant to be zlib-wrapped (RFC 1950 header), but servers send raw deflate too. */
function zlibWrapped(first: Buffer): boolean {
  if (first.length < 2) return true;
  const cmf = first[0]!;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | first[1]!) % 31 === 0;
}

/**
 * Decodes on libuv's thread pool, like the client's own decoder, and keeps only the count: the output is
 * dropped as it comes, so a bomb costs time on the pool, not memory. A corrupt or cut-off stream, or one
 * whose input piles up, leaves the size unknown (the wire size is used).
 */
class ZlibCounter implements SizeCounter {
  private stream: Transform | null = null;
  private total = 0;
  private state: 'running' | 'done' | 'failed' = 'running';

  constructor(
    private readonly open: Open,
    private readonly maxPending: number,
    private readonly settled: (size: number | undefined) => void,
  ) {}

  write(chunk: Buffer): void {
    if (this.state !== 'running' || chunk.length === 0) return;
    try {
      this.stream ??= this.start(chunk);
      this.stream.write(chunk);
      if (this.stream.writableLength > this.maxPending) this.fail();
    } catch {
      this.fail();
    }
  }

  end(): void {
    if (this.state !== 'running') return;
    if (!this.stream) {
      this.done();
      return;
    }
    try {
      this.stream.end();
    } catch {
      this.fail();
    }
  }

  private start(first: Buffer): Transform {
    const stream = this.open(first);
    stream.on('data', (out: Buffer) => {
      this.total += out.length;
    });
    stream.on('end', () => this.done());
    stream.on('error', () => this.fail());
    return stream;
  }

  private done(): void {
    if (this.state !== 'running') return;
    this.state = 'done';
    this.settled(this.total);
  }

  private fail(): void {
    if (this.state !== 'running') return;
    this.state = 'failed';
    this.stream?.destroy();
    this.settled(undefined);
  }
}
