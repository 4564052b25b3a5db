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
 * Media types whose bodies are bytes, not text (SVG and other `+xml` types are text). Any other type, or none,
 * counts as binary when its bytes are not UTF-8, so a replay gives back the bytes that came; JSON, forms and
 * event streams are read as text whatever they hold (they are masked as text).
 */
const BINARY_TYPE =
  /^(?:image\/(?!svg\+xml$)|audio\/|video\/|font\/|application\/(?:octet-stream|pdf|zip|gzip|x-gzip|x-tar|x-bzip2|x-7z-compressed|x-xz|zstd|wasm|msgpack|x-msgpack|vnd\.msgpack|cbor|x-protobuf|protobuf|x-google-protobuf|vnd\.google\.protobuf|grpc(?:\+proto)?|vnd\.apache\.avro\+binary|vnd\.apache\.parquet|x-parquet|vnd\.ms-excel|vnd\.openxmlformats-officedocument\.[a-z.]+)$)/;
const TEXT_ALWAYS = /^(?:application\/(?:json|x-www-form-urlencoded)|text\/event-stream)$|\+json$/;

/** True when a body is kept as bytes (base64) rather than text: by its media type, or bytes that are not UTF-8. */
export function isBinaryBody(contentType: string | null, bytes: Buffer): boolean {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (BINARY_TYPE.test(media)) return true;
  if (TEXT_ALWAYS.test(media) || bytes.length === 0) return false;
  try {
    // `stream` leaves a sequence cut at the cap undecided instead of failing it.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return false;
  } catch {
    return true;
  }
}

/**
 * A binary body as stored: base64 of its bytes, with the secrets text masking finds in them masked. The bytes
 * are read as latin1 (one character per byte, so the round trip is exact), masked like a text body (credential
 * formats, secret-named pairs in a protobuf's strings), and written back; a body with no secret is unchanged.
 */
export function binaryBodyBase64(bytes: Buffer, maskText: (text: string) => string): string {
  const text = bytes.toString('latin1');
  const masked = maskText(text);
  return (masked === text ? bytes : Buffer.from(masked, 'latin1')).toString('base64');
}

/** A body after `content-encoding` is undone, at most `maxBytes` of it. */
export interface DecodedBody {
  bytes: Buffer;
  /** False when `bytes` is only the start: the body decodes past `maxBytes`, or its wire bytes were cut. */
  whole: boolean;
}

type SyncDecode = (bytes: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Buffer;

/** Sync decoders by coding, and the flush that makes each return what a cut-off input decodes to. */
interface Coding {
  decode: SyncDecode;
  partial: number;
}

const zstd = zlib as unknown as { zstdDecompressSync?: SyncDecode; constants: { ZSTD_e_flush?: number } };

const CODINGS: Record<string, Coding> = {
  gzip: { decode: zlib.gunzipSync, partial: zlib.constants.Z_SYNC_FLUSH },
  'x-gzip': { decode: zlib.gunzipSync, partial: zlib.constants.Z_SYNC_FLUSH },
  br: { decode: zlib.brotliDecompressSync, partial: zlib.constants.BROTLI_OPERATION_FLUSH },
  deflate: { decode: inflateEither, partial: zlib.constants.Z_SYNC_FLUSH },
  // Node 22.15 / 23.8 and later; without it a zstd body stays as it came.
  ...(zstd.zstdDecompressSync && zstd.constants.ZSTD_e_flush !== undefined
    ? { zstd: { decode: zstd.zstdDecompressSync, partial: zstd.constants.ZSTD_e_flush } }
    : {}),
};

/** The codings of a `content-encoding` value in the order they were applied (identity dropped). */
export function contentCodings(encoding: string | undefined): string[] {
  return (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
}

/** True when Probe can undo this coding here (zstd needs Node 22.15 or later). */
export function canDecode(coding: string): boolean {
  return Object.hasOwn(CODINGS, coding);
}

/**
 * Undoes `content-encoding` on a kept body so captures can read it, stopping at `maxBytes` of output so a
 * decompression bomb costs at most that. `cut` says the wire bytes are only the start of the body; the
 * start of a body longer than `maxBytes` is decoded only when `wantStart` (it costs several tries). Returns
 * null when it cannot be decoded (unknown coding, corrupt).
 */
export function decodeContent(bytes: Buffer, encoding: string | undefined, maxBytes: number, cut = false, wantStart = true): DecodedBody | null {
  const codings = contentCodings(encoding);
  if (codings.length === 0) return { bytes, whole: !cut };
  if (!codings.every(canDecode)) return null;
  const max = Math.max(maxBytes, 1);
  if (codings.length > 1) {
    // Rare enough to keep simple: decoded whole or not at all.
    if (cut) return { bytes: Buffer.alloc(0), whole: false };
    let out = bytes;
    try {
      for (const coding of codings.reverse()) out = CODINGS[coding]!.decode(out, { maxOutputLength: max });
    } catch (error) {
      return (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? { bytes: Buffer.alloc(0), whole: false } : null;
    }
    return { bytes: out, whole: true };
  }
  const coding = CODINGS[codings[0]!]!;
  if (!cut) {
    try {
      return { bytes: coding.decode(bytes, { maxOutputLength: max }), whole: true };
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE') return null;
    }
  }
  if (!wantStart) return { bytes: Buffer.alloc(0), whole: false };
  const start = decodeStart(bytes, coding, max, !cut);
  // Known to decode past the cap: truncated, even when no start of it decodes.
  return start || !cut ? { bytes: start ?? Buffer.alloc(0), whole: false } : null;
}

/** Decodes tried for the start of a long body: each costs at most the cap of output. */
const START_TRIES = 12;

/**
 * The start of a body that decodes past `max` (or whose wire bytes were cut). The sync decoders throw
 * rather than stop at `maxOutputLength`, so starts of the wire bytes are tried: halved until one fits
 * (a 1,000 : 1 bomb takes about ten), then bisected towards the longest that fits while tries are left.
 * Null when not even a start decodes (corrupt).
 */
function decodeStart(bytes: Buffer, coding: Coding, max: number, knownOver: boolean): Buffer | null {
  const options = { maxOutputLength: max, finishFlush: coding.partial };
  let best: Buffer | null = null;
  let fits = 0; // the longest start known to fit
  let over = knownOver ? bytes.length : bytes.length + 1; // the shortest start known to decode past max
  let length = knownOver ? Math.floor(bytes.length / 2) : bytes.length;
  for (let tries = 0; tries < START_TRIES && length > fits && length < over; tries++) {
    try {
      best = coding.decode(bytes.subarray(0, length), options);
      fits = length;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE') return best;
      over = length;
    }
    length = best ? Math.floor((fits + over) / 2) : Math.floor(length / 2);
  }
  return best;
}

/**
 * The decoded size a whole gzip body states in its trailer (ISIZE, RFC 1952: the size modulo 2^32), which
 * zlib checks when it decodes. Used for a body kept whole on the wire that decodes past the cap, when no
 * count ran; null when the body is not one whole gzip member as far as can be told.
 */
export function gzipStatedSize(bytes: Buffer, encoding: string | undefined): number | null {
  const codings = contentCodings(encoding);
  if (codings.length !== 1 || (codings[0] !== 'gzip' && codings[0] !== 'x-gzip')) return null;
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return null;
  return bytes.readUInt32LE(bytes.length - 4);
}

/** `deflate` is meant to be zlib-wrapped, but servers send raw deflate too. */
function inflateEither(bytes: Buffer, options: zlib.ZlibOptions): Buffer {
  try {
    return zlib.inflateSync(bytes, options);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw error;
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
