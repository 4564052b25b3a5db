import type { HttpRow } from '../capture/types';

/** Small readings of rows that several rules share. */

/** When a call ended, in ms from the capture's start (its start when no duration was measured). */
export function endOf(row: HttpRow): number {
  return row.time + (row.duration ?? 0);
}

/** The `file:line` of the code that made each call, each line once, in the order given. */
export function codeLines(rows: readonly HttpRow[], indexes: readonly number[]): string[] {
  const lines = new Set<string>();
  for (const index of indexes) {
    const origin = rows[index]?.origin;
    if (origin) lines.add(`${origin.file}:${origin.line}`);
  }
  return [...lines];
}

/**
 * What identifies a request: method, URL and body. Null when the body was sent but not kept as fields or
 * text (a binary upload with `bodies` off): two such calls cannot be told apart, so they are never called
 * identical.
 */
export function requestIdentity(row: HttpRow): string | null {
  let body = '';
  if (row.request_payload !== null) body = JSON.stringify(row.request_payload);
  else if (row.request_body !== null) body = row.request_body;
  else if (row.request_bytes > 0) return null;
  return `${row.method} ${row.url}\n${body}`;
}

/** Rows in start order, ties kept in row order. */
export function startOrder(rows: readonly HttpRow[]): number[] {
  return rows.map((_, index) => index).sort((a, b) => rows[a]!.time - rows[b]!.time || a - b);
}

export function roundMs(value: number): number {
  return Math.round(value * 10) / 10;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
