/**
 * The order key of a capture: `started_at` in microseconds, zero-padded so that file names and Redis
 * members sort as numbers. Newest first means: order key descending, then id descending.
 */
const WIDTH = 17;

export function orderKeyOf(startedAt: number): string {
  const micros = Number.isFinite(startedAt) && startedAt > 0 ? Math.round(startedAt * 1e6) : 0;
  return String(Math.min(micros, Number.MAX_SAFE_INTEGER)).padStart(WIDTH, '0');
}

/** File name of a capture in the file store: `<order key>-<id>.json`. */
export function captureNameOf(orderKey: string, id: string): string {
  return `${orderKey}-${id}.json`;
}

const CAPTURE_NAME = /^(\d{17})-([0-9A-Za-z_-]{8,64})\.json$/;

export function parseCaptureName(name: string): { name: string; key: string; id: string } | null {
  const match = CAPTURE_NAME.exec(name);
  return match ? { name, key: match[1]!, id: match[2]! } : null;
}
