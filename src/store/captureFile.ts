import type { Capture, IndexRow } from '../capture/types';
import { readableCapture } from '../capture/readableCapture';

/**
 * The text of a capture file: `{"row":<index row>,"capture":<capture>,"end":"<id>"}`, one JSON document. The
 * index row comes first so that `index()` reads only the head of each file. One file per capture, not a
 * capture file beside a row file: no reader or trim ever sees a capture whose row is missing. The `end`
 * member closes the file: a file cut short (a full disk, a crash of the machine) lacks it, so the index
 * reads a few bytes at the end of each file to list only captures `find()` can read whole.
 */
const HEAD = '{"row":';
const HEAD_BYTES = Buffer.from(HEAD);

export function captureFileText(rowText: string, captureText: string, id: string): string {
  return `${HEAD}${rowText},"capture":${captureText}${fileEnd(id)}`;
}

/** The last characters of a whole capture file (ids are ASCII and never need escaping). */
export function fileEnd(id: string): string {
  return `,"end":${JSON.stringify(id)}}`;
}

/**
 * The index row at the start of a capture file: null when the file is not one of ours, undefined when
 * `head` is only the file's first bytes and the row runs past them (read the whole file). The row ends
 * where its braces balance: structural characters are ASCII, and UTF-8 never uses an ASCII byte inside a
 * multi-byte character.
 */
export function rowOfHead(head: Buffer, wholeFile: boolean): IndexRow | null | undefined {
  const start = HEAD_BYTES.length;
  if (head.length < start) return wholeFile ? null : undefined;
  if (!head.subarray(0, start).equals(HEAD_BYTES)) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < head.length; i++) {
    const byte = head[i]!;
    if (inString) {
      if (byte === 0x5c)
        i++; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) {
      if (--depth === 0) return parseObject(head.toString('utf8', start, i + 1)) as IndexRow | null;
      if (depth < 0) return null;
    }
  }
  return wholeFile ? null : undefined;
}

/**
 * The capture inside a capture file's text as readers get it (a JSON body stored once is given back as cards
 * and raw: capture/readableCapture.ts), or null when the text is not a whole capture file.
 */
export function captureOfText(text: string): Capture | null {
  const doc = parseObject(text) as { row?: unknown; capture?: unknown } | null;
  const capture = doc?.capture;
  return capture && typeof capture === 'object' && !Array.isArray(capture) ? readableCapture(capture as Capture) : null;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
