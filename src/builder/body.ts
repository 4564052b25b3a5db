import zlib from 'node:zlib';
import type { BodyInput } from './input';

const decoder = new TextDecoder('utf-8', { fatal: false });

export function bodyBytes(body: BodyInput | null): Buffer {
  if (!body || body.chunks.length === 0) return Buffer.alloc(0);
  return body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks);
}

/** Invalid UTF-8 becomes U+FFFD rather than failing: recorded bodies are shown, never trusted. */
export function bytesToText(bytes: Buffer): string {
  return decoder.decode(bytes);
}

/**
 * Undoes `content-encoding` on a kept body so captures can read it. Returns null when it cannot be decoded
 * (truncated, unknown encoding, corrupt), capped so a decompression bomb cannot blow up the builder.
 */
export function decodeContent(bytes: Buffer, encoding: string | undefined, maxBytes: number): Buffer | null {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  let out = bytes;
  const options = { maxOutputLength: Math.max(maxBytes, 1) };
  try {
    for (const coding of codings.reverse()) {
      if (coding === 'gzip' || coding === 'x-gzip') out = zlib.gunzipSync(out, options);
      else if (coding === 'br') out = zlib.brotliDecompressSync(out, options);
      else if (coding === 'deflate') out = inflateEither(out, options);
      else return null;
    }
  } catch {
    return null;
  }
  return out;
}

/** `deflate` is meant to be zlib-wrapped, but servers send raw deflate too. */
function inflateEither(bytes: Buffer, options: zlib.ZlibOptions): Buffer {
  try {
    return zlib.inflateSync(bytes, options);
  } catch {
    return zlib.inflateRawSync(bytes, options);
  }
}

/** A header by its lower-case name. The lens stores lower-case names, so the scan is for hand-made input. */
export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
  if (Object.hasOwn(headers, name)) return headerText(headers[name]);
  for (const key in headers) {
    if (Object.hasOwn(headers, key) && key.toLowerCase() === name) return headerText(headers[key]);
  }
  return undefined;
}

function headerText(value: unknown): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value == null ? undefined : String(value);
}
