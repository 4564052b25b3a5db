import type { Capture, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import { isValidCaptureId } from '../capture/indexRow';
import { QueryError } from './QueryError';
import { shownInput } from './inputs';

/** Sections Probe itself writes: valid names even before any capture has one. */
export const KNOWN_SECTIONS: readonly string[] = ['http', 'request'];

/** Ids offered when an agent names a capture that is not there. */
const RECENT_IDS = 10;

/** Names of the sections present in a capture, in stored order. */
export function sectionsOf(capture: Capture): string[] {
  return Object.keys(capture.sections ?? {});
}

/** Section names seen across the index (`counts` keys), for error messages. */
export function sectionsInIndex(index: readonly IndexRow[]): string[] {
  const names = new Set<string>();
  for (const row of index) for (const name of Object.keys(row.counts ?? {})) names.add(name);
  return [...names];
}

function recentIds(index: readonly IndexRow[]): string[] {
  return index.slice(0, RECENT_IDS).map((row) => row.id);
}

/**
 * The capture an agent named. Unknown or malformed ids are a query error that offers the most recent ids:
 * the store keeps only the newest captures, so an old id may simply be gone.
 */
export async function findCapture(store: Store, id: string): Promise<Capture> {
  if (!isValidCaptureId(id)) {
    const index = await store.index();
    throw new QueryError(`${shownInput(id)} is not a capture id (8-64 characters of 0-9 A-Z a-z _ -)`, recentIds(index));
  }
  const capture = await store.find(id);
  if (capture) return capture;
  const index = await store.index();
  const offered = recentIds(index);
  throw new QueryError(
    `no capture with id ${shownInput(id)} in the store${offered.length ? ' (the store keeps only the most recent captures; most recent ids follow)' : ' (the store is empty)'}`,
    offered,
  );
}

/**
 * The newest capture matching `accept`, reading captures newest first. An index row whose capture has
 * gone (removed by the limit, expired in Redis) is skipped rather than reported.
 */
export async function newestCapture(store: Store, index: readonly IndexRow[], accept: (row: IndexRow) => boolean): Promise<Capture | null> {
  for (const row of index) {
    if (!accept(row)) continue;
    const capture = await store.find(row.id);
    if (capture) return capture;
  }
  return null;
}
