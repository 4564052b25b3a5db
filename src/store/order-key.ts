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

/**
 * Files of the layout before the index row moved into the capture file: `<id>.json` beside
 * `<order key>-<id>.row`. Never read; the trim removes them once stale, and `clear` at once. The `.json`
 * ones are matched only with the shape of the ids Probe made (a 9-character base36 time and 8 random
 * characters, 17 in all), so that neither a user's own `settings.json` in a shared folder nor a capture
 * file of this layout (at least 26 characters before `.json`) is taken for one.
 */
const LEGACY_NAME = /^(?:\d{17}-[0-9A-Za-z_-]{8,64}\.row|[0-9a-z]{9}[0-9A-Za-z_-]{8}\.json)$/;

export function isLegacyName(name: string): boolean {
  return LEGACY_NAME.test(name);
}
