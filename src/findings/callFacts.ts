import type { HttpRow } from '../capture/types';

/** Small readings of rows that several rules share. */

/** When a call ended, in ms from the capture's start (its start when no duration was measured). */
export function endOf(row: HttpRow): number {
  return row.time + (row.duration ?? 0);
}

/** The `file:line` of a chain link (`file:line function`). */
function linkLine(link: string): string {
  const space = link.indexOf(' ');
  return space < 0 ? link : link.slice(0, space);
}

function chainOf(row: HttpRow | undefined): string[] {
  const origin = row?.origin;
  if (!origin) return [];
  return origin.chain.length ? origin.chain.map(linkLine) : [`${origin.file}:${origin.line}`];
}

/**
 * The code lines that made the calls, each once, in call order: where the calls came from the same line (a shared
 * client, a helper) but from different callers, the first caller up the origin chain where they part.
 */
export function codeLines(rows: readonly HttpRow[], indexes: readonly number[]): string[] {
  const chains = indexes.map((index) => chainOf(rows[index]));
  const known = chains.filter((chain) => chain.length > 0);
  if (known.length === 0) return [];
  let shared = 0;
  for (; shared < known[0]!.length; shared++) {
    const link = known[0]![shared];
    if (!known.every((chain) => chain[shared] === link)) break;
  }
  const lines = new Set<string>();
  for (const chain of known) {
    // All the same: the line that made the call. Parting: each one's first caller of its own.
    lines.add(shared >= chain.length ? chain[0]! : shared === 0 ? chain[0]! : chain[shared]!);
  }
  return [...lines];
}

/** Every line of every call's origin chain, each once (the callers of a call that must not be repeated). */
export function chainLines(rows: readonly HttpRow[], indexes: readonly number[]): string[] {
  const lines = new Set<string>();
  for (const index of indexes) for (const line of chainOf(rows[index])) lines.add(line);
  return [...lines];
}

/** A row's call site: its origin chain, or '' when the line that made it is not known. */
export function siteOf(row: HttpRow): string {
  return chainOf(row).join('\n');
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

/** What identifies an answer: status, size and the body kept (cards, text or bytes). */
export function answerIdentity(row: HttpRow): string {
  const capture = row.response_capture;
  const body = capture ? (capture.raw ?? JSON.stringify(capture.cards ?? null)) : (row.response_body ?? row.response_body_base64 ?? '');
  return `${row.status}\n${row.response_bytes}\n${body}`;
}

/** Methods a repeat of which changes something again (HTTP's non-idempotent ones, and DELETE). */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'DELETE']);

/** Bytes a call carried both ways. */
export function bytesOf(row: HttpRow): number {
  return row.request_bytes + (row.response_bytes ?? 0);
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
