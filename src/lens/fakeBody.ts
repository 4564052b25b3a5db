import type { BodyTap } from '../runtime/BodyTap';

type Input = string | URL | Request;

/** A request body Probe keeps its own branch of, because the fake reads (and so uses up) the app's. */
export interface HeldBody {
  /** What the fake is called with: the app's arguments, with a stream body swapped for its tee twin. */
  input: Input;
  init: RequestInit | undefined;
  /** Reads Probe's branch into `tap` (at most its cap, then lets go). */
  read(tap: BodyTap): Promise<void>;
  /** Lets go of Probe's branch unread: the call went to the network, where undici counts the body. */
  release(): void;
}

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/** True when this fetch is answered by undici's MockAgent (passed in, or installed globally). */
export function mockAgentAnswers(init: RequestInit | undefined): boolean {
  const dispatcher = (init as { dispatcher?: unknown } | undefined)?.dispatcher ?? (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
  return typeof dispatcher === 'object' && dispatcher !== null && dispatcher.constructor?.name === 'MockAgent';
}

const isStream = (body: unknown): body is ReadableStream<Uint8Array> =>
  typeof body === 'object' && body !== null && typeof (body as ReadableStream).getReader === 'function' && typeof (body as ReadableStream).tee === 'function';

const isRequest = (input: unknown): input is Request =>
  typeof input === 'object' &&
  input !== null &&
  typeof (input as Request).clone === 'function' &&
  typeof (input as Request).method === 'string' &&
  'url' in input;

/**
 * Stream bodies (a ReadableStream in `init`, or a Request's own body) can be read once, and the fake reads
 * them. Probe keeps a second branch: `tee()` for a stream in `init` (the fake gets the other branch through a
 * copy of `init`), `clone()` for a Request (which tees its body in place). Other bodies stay readable
 * after the call and need nothing here. Returns null when there is nothing to hold (or it cannot be).
 */
export function holdStreamBody(input: Input, init: RequestInit | undefined): HeldBody | null {
  try {
    const body = init?.body;
    if (isStream(body)) {
      if (body.locked) return null;
      const [theirs, ours] = body.tee();
      return held(input, { ...init, body: theirs }, ours);
    }
    if (body == null && isRequest(input) && input.body && !input.bodyUsed) {
      const copy = input.clone();
      return copy.body ? held(input, init, copy.body) : null;
    }
  } catch {
    // a body the fake would reject anyway
  }
  return null;
}

function held(input: Input, init: RequestInit | undefined, ours: ReadableStream<Uint8Array>): HeldBody {
  return {
    input,
    init,
    read: (tap) => readCapped(ours, tap),
    release: () => void ours.cancel().catch(() => {}),
  };
}

/**
 * The request body of a call a fake answered, from what stays readable after the call: strings, form
 * fields, bytes, Blobs and FormData. Returns the content type fetch would send for it, if any.
 */
export async function readSettledBody(body: unknown, tap: BodyTap): Promise<string | null> {
  if (body == null) return null;
  if (typeof body === 'string') {
    tap.add(body);
    return 'text/plain;charset=UTF-8';
  }
  if (body instanceof URLSearchParams) {
    tap.add(body.toString());
    return 'application/x-www-form-urlencoded;charset=UTF-8';
  }
  if (body instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && body instanceof SharedArrayBuffer)) {
    tap.add(new Uint8Array(body));
    return null;
  }
  if (ArrayBuffer.isView(body)) {
    tap.add(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    return null;
  }
  const tag = Object.prototype.toString.call(body);
  if (tag === '[object Blob]' || tag === '[object File]' || tag === '[object FormData]') {
    // fetch's own encoding of it (FormData as multipart with its boundary), read without touching the app's object.
    const encoded = new Response(body as Blob | FormData);
    const type = encoded.headers.get('content-type');
    if (tag === '[object FormData]' && !type?.startsWith('multipart/form-data')) return null;
    if (encoded.body) await readCapped(encoded.body, tap);
    return type;
  }
  return null;
}

/**
 * A fake's response body, from a clone: read to the end so its size counts every byte, while the tap
 * keeps at most its cap (an `arrayBuffer()` would hold a second copy of the whole body). Never throws.
 */
export function readFakeResponse(stream: ReadableStream<Uint8Array>, tap: BodyTap): Promise<void> {
  return readCapped(stream, tap, false);
}

/** Reads a stream into `tap` until it ends (or, `stopWhenFull`, the tap is full), then cancels it. Never throws. */
async function readCapped(stream: ReadableStream<Uint8Array>, tap: BodyTap, stopWhenFull = true): Promise<void> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      tap.add(value);
      if (stopWhenFull && tap.truncated) break;
    }
    await reader.cancel();
  } catch {
    try {
      await reader?.cancel();
    } catch {
      // already errored
    }
  }
}
