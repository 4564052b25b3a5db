import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const ID_BYTES = 6;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * Capture ids sort by creation time (a 9-char base36 millisecond stamp) and end in 8 random url-safe
 * characters so processes on several hosts never collide. Random bytes come from a pool refilled in one
 * call: one `randomBytes` per unit of work showed in server profiles.
 */
export function newCaptureId(now: number = Date.now()): string {
  if (offset + ID_BYTES > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return now.toString(36).padStart(9, '0') + random;
}
