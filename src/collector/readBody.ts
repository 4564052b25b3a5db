import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';

/** Why a body could not be read: the status code and message the receiver answers with. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a request body up to `maxBytes` and undoes its content-encoding. The limit holds for the bytes on the
 * wire and again for the decompressed bytes, so a small gzip bomb cannot inflate past it.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') {
    throw new BodyError(415, `unsupported content-encoding ${JSON.stringify(encoding)}: send gzip or none`);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new BodyError(413, `body of ${declared} bytes is over the ${maxBytes}-byte limit`);
  const raw = await collect(req, maxBytes);
  if (encoding === 'identity') return raw;
  const inflate = encoding === 'deflate' ? zlib.inflate : zlib.gunzip;
  return new Promise<Buffer>((resolve, reject) => {
    inflate(raw, { maxOutputLength: maxBytes }, (error, out) => {
      if (!error) return resolve(out);
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') reject(new BodyError(413, `decompressed body is over the ${maxBytes}-byte limit`));
      else reject(new BodyError(400, `body is not valid ${encoding}: ${error.message}`));
    });
  });
}

function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      chunks.length = 0;
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) return fail(new BodyError(413, `body is over the ${maxBytes}-byte limit`));
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks, size));
    });
    req.on('error', fail);
    req.on('close', () => fail(new BodyError(400, 'request closed before its end')));
  });
}
