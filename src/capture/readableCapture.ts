import type { Capture, HttpRow, ResponseCaptureResult } from './types';

/**
 * A stored response capture as readers get it (`{capture, cards, raw}`: docs/capture-format.md). A JSON body is stored once,
 * as its text (`cards_from_raw`): the cards are its parse (null when it does not parse), the raw body the
 * cards serialised, as both were when they were stored apart. Anything else is returned as it is.
 */
export function readableResponseCapture(stored: ResponseCaptureResult): ResponseCaptureResult {
  if (stored.cards_from_raw !== true || typeof stored.raw !== 'string') return stored;
  let cards: unknown;
  try {
    // `-0` in a body read back as 0 when the cards were stored as JSON apart: the same here.
    cards = stored.raw.includes('-0') ? JSON.parse(stored.raw, noNegativeZero) : JSON.parse(stored.raw);
  } catch {
    return { capture: stored.capture, cards: null, raw: stored.raw };
  }
  return { capture: stored.capture, cards, raw: JSON.stringify(cards) };
}

/**
 * The capture with each HTTP row's response capture as readers get it (readableResponseCapture). Stores call
 * it on what they read; rows are copied only where they change, so a capture stored by an older version (or
 * already readable) comes back as the same object.
 */
export function readableCapture(capture: Capture): Capture {
  const rows = capture?.sections?.http;
  if (!Array.isArray(rows) || !rows.some((row) => storedOnce(row) || binaryStoredOnce(row))) return capture;
  const http = rows.map((row) => {
    if (binaryStoredOnce(row)) return { ...row, response_body: decoder.decode(Buffer.from(row.response_body_base64!, 'base64')) };
    return storedOnce(row) ? { ...row, response_capture: readableResponseCapture(row.response_capture!) } : row;
  });
  return { ...capture, sections: { ...capture.sections, http } };
}

function storedOnce(row: HttpRow | null | undefined): boolean {
  return row?.response_capture?.cards_from_raw === true;
}

/**
 * A binary body is stored once, as base64 (`response_body_base64`, `response_body` null): readers get
 * `response_body` as before, the bytes read as UTF-8 (invalid sequences as U+FFFD), beside the base64.
 */
function binaryStoredOnce(row: HttpRow | null | undefined): boolean {
  return typeof row?.response_body_base64 === 'string' && row.response_body === null;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

function noNegativeZero(_key: string, value: unknown): unknown {
  return value === 0 ? 0 : value;
}
