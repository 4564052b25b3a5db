import { randomBytes } from 'node:crypto';

/**
 * Capture ids sort by creation time (a 9-char base36 millisecond stamp) and end in 8 random url-safe
 * characters so processes on several hosts never collide.
 */
export function newCaptureId(now: number = Date.now()): string {
  const stamp = now.toString(36).padStart(9, '0');
  return stamp + randomBytes(6).toString('base64url');
}
