import { createHash } from 'node:crypto';
import type { Capture, ConnectionKey } from '../capture/types';

/**
 * The link index's contract (docs/flows.md). A stored capture leaves one note per key it holds: each outgoing call
 * (`call`: its connection, and the `traceparent` it sent) and the request it served (`request`: the same keys as
 * its server saw them). A reader looks up the other side of each of its keys: a call whose key has exactly one
 * request note, consistent in time, was answered by that request's capture. Notes are written once per key and
 * side; a second capture under one key and side makes it `many`, and a key that is `many` links nothing.
 */
export type LinkSide = 'call' | 'request';

export interface LinkNote {
  key: string;
  side: LinkSide;
  capture: string;
  /** The row index, for a call. */
  row?: number;
  /** When the call started or the request arrived, epoch ms. */
  at: number;
  /** When the call ended, epoch ms (a call's note). */
  end?: number;
}

/** What the index holds for one key and side: the one note, or `many` when two captures claimed it. */
export type NoteEntry = LinkNote | { many: true; at: number };

export interface LinkSides {
  call?: NoteEntry;
  request?: NoteEntry;
}

/** The link index a store keeps beside its captures. Never throws into a put: callers catch. */
export interface LinkIndex {
  note(notes: LinkNote[]): Promise<void> | void;
  read(keys: string[]): Promise<Map<string, LinkSides>>;
}

/**
 * Notes this far apart in time under one key are not rivals: the older one is from a connection whose port the
 * system gave out again since (a client's ephemeral port comes back after tens of thousands of connections).
 */
export const STALE_NOTE_MS = 10 * 60_000;
/**
 * How far a request may start outside its call's own time and still be its answer: the two ends' clocks (one host:
 * none; several: their skew) and the call's start taken before its connection was made.
 */
export const CLOCK_SLACK_MS = 2_000;

const connectionKey = (client: string, server: string, order: number) => `c:${client}>${server}#${order}`;
/** A W3C trace context's trace id and parent id: what a caller sent and its server received (flags may differ on the way). */
const traceKey = (traceparent: string) => `t:${traceparent.trim().toLowerCase().split('-').slice(1, 3).join('-')}`;
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/i;

/** A key's name in a store (file name, Redis key): a fixed-length hash, never the addresses as given. */
export function keyName(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 40);
}

function traceparentOf(own: string | undefined, headers: Record<string, string> | undefined): string | null {
  const value = own ?? headers?.traceparent;
  return typeof value === 'string' && TRACEPARENT.test(value.trim()) ? value : null;
}

function validConnection(connection: ConnectionKey | undefined): connection is ConnectionKey {
  return !!connection && typeof connection.local === 'string' && typeof connection.remote === 'string' && Number.isInteger(connection.order);
}

/** The keys of each call of a capture, by row index, and of the request it served. Pure, linear in its rows. */
export function keysOf(capture: Capture): { rows: string[][]; request: string[] } {
  const rows = (capture.sections?.http ?? []).map((row) => {
    const keys: string[] = [];
    if (validConnection(row.connection)) keys.push(connectionKey(row.connection.local, row.connection.remote, row.connection.order));
    const traceparent = traceparentOf(row.traceparent, row.request_headers);
    if (traceparent) keys.push(traceKey(traceparent));
    return keys;
  });
  const request: string[] = [];
  const section = capture.sections?.request;
  if (section) {
    if (validConnection(section.connection)) request.push(connectionKey(section.connection.remote, section.connection.local, section.connection.order));
    const traceparent = traceparentOf(section.traceparent, section.headers);
    if (traceparent) request.push(traceKey(traceparent));
  }
  return { rows, request };
}

/** The notes a stored capture leaves in the link index. */
export function notesOf(capture: Capture): LinkNote[] {
  const { rows, request } = keysOf(capture);
  const start = capture.started_at * 1000;
  const notes: LinkNote[] = [];
  const http = capture.sections?.http ?? [];
  rows.forEach((keys, row) => {
    const at = start + (http[row]!.time ?? 0);
    const end = at + (http[row]!.duration ?? capture.duration - (http[row]!.time ?? 0));
    for (const key of keys) notes.push({ key, side: 'call', capture: capture.id, row, at, end });
  });
  for (const key of request) notes.push({ key, side: 'request', capture: capture.id, at: start });
  return notes;
}

/** What a store does with a new note where `existing` is: keep it, write the new one, or mark the key `many`. */
export function decideNote(existing: NoteEntry | null | undefined, note: LinkNote): 'write' | 'keep' | 'many' {
  if (!existing || typeof existing !== 'object') return 'write';
  if (Math.abs((existing.at ?? 0) - note.at) > STALE_NOTE_MS) return 'write';
  if ('many' in existing) return 'keep';
  if (existing.capture === note.capture && existing.row === note.row) return 'keep';
  return 'many';
}

const single = (entry: NoteEntry | undefined): LinkNote | null => (entry && !('many' in entry) ? entry : null);

/** The one answer all of a side's keys agree on, or null when any is ambiguous or two disagree. */
function agreed<T>(
  keys: string[],
  pick: (sides: LinkSides | undefined) => T | null | 'no',
  same: (a: T, b: T) => boolean,
  sides: Map<string, LinkSides>,
): T | null {
  let found: T | null = null;
  for (const key of keys) {
    const value = pick(sides.get(key));
    if (value === 'no') return null;
    if (value === null) continue;
    if (found !== null && !same(found, value)) return null;
    found = value;
  }
  return found;
}

/**
 * The capture with `answered_by` on the rows whose keys lead to one request capture, and `caused_by` when its request's
 * keys lead to one call, read from `sides` (the index's entries for keysOf's keys). Never guessed: a key claimed by
 * two captures, keys that disagree, or a request outside its call's time links nothing.
 */
export function applyLinks(capture: Capture, sides: Map<string, LinkSides>): Capture {
  const { rows, request } = keysOf(capture);
  const http = capture.sections?.http ?? [];
  const start = capture.started_at * 1000;
  rows.forEach((keys, index) => {
    if (!keys.length) return;
    const row = http[index]!;
    const at = start + (row.time ?? 0);
    const end = at + (row.duration ?? capture.duration - (row.time ?? 0));
    const answer = agreed<string>(
      keys,
      (entry) => {
        if (entry?.request && 'many' in entry.request) return 'no';
        // Both sides read the same two notes: this call's must be this row's, or the other side would not link back.
        const own = single(entry?.call);
        if (entry?.request && (own?.capture !== capture.id || own.row !== index)) return 'no';
        const note = single(entry?.request);
        if (!note || note.capture === capture.id) return null;
        return note.at >= at - CLOCK_SLACK_MS && note.at <= end + CLOCK_SLACK_MS ? note.capture : null;
      },
      (a, b) => a === b,
      sides,
    );
    if (answer) row.answered_by = answer;
  });
  if (request.length) {
    const cause = agreed<LinkNote>(
      request,
      (entry) => {
        if (entry?.call && 'many' in entry.call) return 'no';
        const own = single(entry?.request);
        if (entry?.call && own?.capture !== capture.id) return 'no';
        const note = single(entry?.call);
        if (!note || note.capture === capture.id || note.row === undefined) return null;
        return start >= note.at - CLOCK_SLACK_MS && start <= (note.end ?? note.at) + CLOCK_SLACK_MS ? note : null;
      },
      (a, b) => a.capture === b.capture && a.row === b.row,
      sides,
    );
    if (cause) capture.caused_by = { capture: cause.capture, row: cause.row! };
  }
  return capture;
}

/** Every key a reader of `capture` looks up. */
export function lookupKeys(capture: Capture): string[] {
  const { rows, request } = keysOf(capture);
  return [...new Set([...rows.flat(), ...request])];
}

/** Reads a capture's links from `index`; a failing index leaves it unlinked. */
export async function withLinks(capture: Capture, index: LinkIndex | null): Promise<Capture> {
  if (!index) return capture;
  const keys = lookupKeys(capture);
  if (!keys.length) return capture;
  try {
    return applyLinks(capture, await index.read(keys));
  } catch {
    return capture;
  }
}
