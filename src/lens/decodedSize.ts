import path from 'node:path';
import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import type { SizeCounter } from '../runtime/BodyTap';

/** Libraries that decode `content-encoding` themselves over node:http (their default settings). */
const DECODING_CLIENTS = /[\\/]node_modules[\\/](?:axios|got|node-fetch|superagent)[\\/]/;

const PROBE_DIR = path.resolve(__dirname, '..', '..') + path.sep;

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
    if (!file.includes('node_modules') && !file.startsWith('node:') && !file.startsWith(PROBE_DIR)) return false;
  }
  return false;
}

/** Without call sites (origins off): the user-agent these clients send unless the app sets its own. */
export function decodingClientAgent(userAgent: unknown): boolean {
  const value = Array.isArray(userAgent) ? userAgent[0] : userAgent; // node-fetch sets header values as arrays
  return typeof value === 'string' && /^(?:axios|got|node-fetch)\b/i.test(value);
}

/**
 * A counter of the decoded size of a body in one `content-encoding` (gzip, br, deflate), or null for codings
 * it cannot decode: the row then keeps the wire size.
 */
export function decodedSizeCounter(encoding: string): SizeCounter | null {
  const codings = encoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length !== 1) return null;
  const coding = codings[0]!;
  if (coding === 'gzip' || coding === 'x-gzip') return new ZlibCounter(() => zlib.createGunzip());
  if (coding === 'br') return new ZlibCounter(() => zlib.createBrotliDecompress());
  if (coding === 'deflate') return new ZlibCounter((first) => (zlibWrapped(first) ? zlib.createInflate() : zlib.createInflateRaw()));
  return null;
}

/** `deflate` is meant to be zlib-wrapped (RFC 1950 header), but servers send raw deflate too. */
function zlibWrapped(first: Buffer): boolean {
  if (first.length < 2) return true;
  const cmf = first[0]!;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | first[1]!) % 31 === 0;
}

/**
 * Decodes on libuv's thread pool, like the client's own decoder, and keeps only the count: the output is
 * dropped as it comes. A corrupt or cut-off stream leaves the size unknown (the wire size is used).
 */
class ZlibCounter implements SizeCounter {
  private stream: Transform | null = null;
  private total = 0;
  private state: 'running' | 'done' | 'failed' = 'running';

  constructor(private readonly open: (first: Buffer) => Transform) {}

  get size(): number | undefined {
    return this.state === 'done' ? this.total : undefined;
  }

  write(chunk: Buffer): void {
    if (this.state !== 'running' || chunk.length === 0) return;
    try {
      this.stream ??= this.start(chunk);
      this.stream.write(chunk);
    } catch {
      this.fail();
    }
  }

  end(): void {
    if (this.state !== 'running') return;
    if (!this.stream) {
      this.state = 'done';
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
    stream.on('end', () => {
      if (this.state === 'running') this.state = 'done';
    });
    stream.on('error', () => this.fail());
    return stream;
  }

  private fail(): void {
    this.state = 'failed';
    this.stream?.destroy();
  }
}
