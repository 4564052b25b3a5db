import { emptyStoreNote } from './emptyStore';
import type { Capture } from '../capture/types';
import type { Store } from '../capture/Store';
import { QueryError } from './QueryError';
import { checkInputSizes, shownInput } from './inputs';
import { FIELD_LIMITS, SHOW_LIMITS, clip } from './clip';
import { findCapture, newestCapture, sectionsOf } from './locate';
import { DEFAULT_SECTION, captureRef, rowsOfSection, type CaptureRef } from './rows';
import type { Finding } from '../findings/Finding';
import type { DiffResult } from '../diff/Diff';
import { diffCaptures } from '../diff/diffCaptures';
import { StoreFindings } from './findings';
import { shownFindings } from '../findings/floor';
import { BASELINE_PREFIX, compareTarget, findBaseline, newestOfName } from './diff';
import type { BaselineStore } from '../baselines/BaselineStore';
import type { Baseline } from '../baselines/types';
import type { SnapshotStatus } from '../snapshots/Snapshot';

/** What a reader that lives keeps between queries (findings' per-capture durations) and where baselines are. */
export interface QueryReaders {
  findings?: StoreFindings;
  baselines?: BaselineStore;
  /** A test capture against its committed snapshot (snapshots/captureStatus.ts). */
  snapshot?: (capture: Capture) => SnapshotStatus | null;
}

export const SHOW_DEFAULT_LIMIT = 5;
export const SHOW_MAX_LIMIT = 100;

export interface ShowInput {
  /** Default: the newest capture. */
  id?: string;
  /** Default: every section of the capture. */
  sections?: string[];
  /** Rows shown per section. */
  limit?: number;
  /** With `row`: the section of that one row (default `http`). */
  section?: string;
  /** Index of one row (as `row` in probe-rows and the dashboard), returned whole. */
  row?: number;
  /** Also the diff from another capture to this one: `previous` (the run of the same name before), `baseline:<name>`, or an id. */
  compare_to?: string;
  /** Every finding, also those whose cost is under the floor (findings/floor.ts). */
  all?: boolean;
}

/** One row whole: `data` is the row, long strings and bodies clipped with a marker. */
export interface ShownRow {
  id: string | null;
  capture: CaptureRef | null;
  section: string;
  /** Rows in the section. */
  total: number;
  row: number;
  data: unknown;
  note?: string;
}

/** An array section as shown: how many rows it has and the first ones, each with its `row` index. */
export interface ShownRows {
  total: number;
  shown: number;
  /** When the rows were cut and some failed: how many failed (shown first). */
  failed?: number;
  rows: Array<Record<string, unknown>>;
}

export interface ShowResult {
  id: string | null;
  type?: string;
  name?: string;
  status?: string;
  label?: string | null;
  tags?: string[];
  parent_id?: string | null;
  trace_id?: string;
  linked_via?: string | null;
  started_at?: number;
  ended_at?: number;
  duration?: number;
  ended_by?: string;
  job_id?: string | null;
  meta?: Record<string, unknown>;
  summary?: Capture['summary'];
  /** Wasteful calls found when the capture was read (N+1, duplicates, sequential calls, retries, slow calls). */
  findings?: Finding[];
  /** Findings under the floor left out of `findings` (present when some were; `all` lists them). */
  findings_below_floor?: number;
  /** With `compare_to`: what changed from that capture to this one. */
  compare?: DiffResult;
  /** A test capture: whether its calls match its committed snapshot (`probe check`), and what differs. */
  snapshot?: SnapshotStatus;
  /** Rows per section for every section of the capture, listed or not. */
  counts?: Record<string, number>;
  sections?: Record<string, ShownRows | unknown>;
  note?: string;
}

/** A capture's header and summary next to the first rows of the listed sections. */
export function queryShow(store: Store, input?: Omit<ShowInput, 'section' | 'row'>, readers?: QueryReaders): Promise<ShowResult>;
export function queryShow(store: Store, input: ShowInput, readers?: QueryReaders): Promise<ShowResult | ShownRow>;
export async function queryShow(store: Store, input: ShowInput = {}, readers: QueryReaders = {}): Promise<ShowResult | ShownRow> {
  checkInputSizes(input);
  if (input.row !== undefined || input.section !== undefined) {
    if (input.compare_to !== undefined) throw new QueryError('compare_to compares whole captures: leave out section and row');
    return showRow(store, input);
  }
  const limit = input.limit ?? SHOW_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0 || limit > SHOW_MAX_LIMIT)
    throw new QueryError(`limit must be a whole number from 0 to ${SHOW_MAX_LIMIT}, got ${limit}`);
  const baseline = await baselineOf(input.compare_to, readers);
  let capture: Capture | null;
  const notes: string[] = [];
  if (input.id !== undefined) {
    capture = await findCapture(store, input.id);
    if (baseline && capture.name !== baseline.capture.name) {
      // A diff of two different units is thousands of characters of noise that look like a regression.
      throw new QueryError(
        `capture ${capture.id} is ${shownInput(capture.name)} but baseline ${baseline.name} was saved from ${shownInput(baseline.capture.name)}: leave id out to compare the newest ${shownInput(baseline.capture.name)}, or give the id of one`,
      );
    }
  } else if (baseline) {
    capture = await newestOfName(store, baseline.capture.name, baseline.capture.id);
    notes.push(`Without id: the newest capture named ${shownInput(baseline.capture.name)}, the name baseline ${baseline.name} was saved from.`);
  } else {
    const index = await store.index();
    capture = await newestCapture(store, index, () => true);
    if (!capture) return { id: null, note: emptyStoreNote(store) };
    if (index.length > 1) notes.push(`Without id: the newest of ${index.length} stored captures (probe-list lists them).`);
  }
  const present = sectionsOf(capture);
  const wanted = input.sections?.length ? input.sections : present;
  for (const name of wanted) {
    if (!present.includes(name)) throw new QueryError(`capture ${capture.id} has no section ${JSON.stringify(name)}`, present);
  }
  const counts: Record<string, number> = {};
  for (const name of present) counts[name] = rowsOfSection(capture.sections[name]).length;
  const sections: Record<string, unknown> = {};
  let more = false;
  const failedFirst: string[] = [];
  for (const name of wanted) {
    const section = capture.sections[name];
    if (!Array.isArray(section)) {
      sections[name] = clip(section, SHOW_LIMITS);
      continue;
    }
    const picked = shownRows(section, limit);
    const rows = picked.indexes.map((index) => {
      const row: unknown = section[index];
      return row !== null && typeof row === 'object' && !Array.isArray(row)
        ? { row: index, ...(clip(row, SHOW_LIMITS) as Record<string, unknown>) }
        : { row: index, value: clip(row, SHOW_LIMITS) };
    });
    if (section.length > rows.length) more = true;
    if (picked.failed > 0) failedFirst.push(`${name} (${picked.failed} failed)`);
    sections[name] = { total: section.length, shown: rows.length, ...(picked.failed > 0 ? { failed: picked.failed } : {}), rows } satisfies ShownRows;
  }
  const reader = readers.findings ?? new StoreFindings(store);
  const every = await reader.of(capture);
  const { templates } = await reader.view();
  const { shown, hidden } = shownFindings(every);
  const findings = input.all ? every : shown;
  let compare: DiffResult | undefined;
  if (baseline) compare = diffCaptures(baseline.capture, capture, { baselines: { before: baseline.name }, templates });
  else if (input.compare_to !== undefined) {
    if (!readers.baselines) throw new QueryError('compare_to needs the baselines folder of the app');
    const target = await compareTarget(store, readers.baselines, capture, input.compare_to);
    compare = diffCaptures(target.capture, capture, { ...(target.baseline !== undefined ? { baselines: { before: target.baseline } } : {}), templates });
  }
  return {
    id: capture.id,
    type: capture.type,
    name: capture.name,
    status: capture.status,
    label: capture.label,
    tags: capture.tags,
    parent_id: capture.parent_id,
    trace_id: capture.trace_id,
    linked_via: capture.linked_via,
    started_at: capture.started_at,
    ended_at: capture.ended_at,
    duration: capture.duration,
    ended_by: capture.ended_by,
    job_id: capture.job_id,
    meta: capture.meta,
    summary: capture.summary,
    findings,
    ...(hidden && !input.all ? { findings_below_floor: hidden } : {}),
    ...(compare ? { compare } : {}),
    ...snapshotOf(capture, readers),
    counts,
    sections,
    note: [
      ...notes,
      'Long values are clipped.',
      ...(failedFirst.length ? [`Cut to limit ${limit}, failed rows first: ${failedFirst.join(', ')}.`] : []),
      ...(more ? [`More rows: probe-rows with id ${capture.id} and a section, filtered and sorted.`] : []),
    ].join(' '),
  };
}

function snapshotOf(capture: Capture, readers: QueryReaders): { snapshot?: SnapshotStatus } {
  const snapshot = readers.snapshot?.(capture);
  return snapshot ? { snapshot } : {};
}

/** The baseline a `compare_to: "baseline:<name>"` names (a query error listing the saved names when none is). */
async function baselineOf(compareTo: string | undefined, readers: QueryReaders): Promise<Baseline | null> {
  if (compareTo === undefined || !compareTo.startsWith(BASELINE_PREFIX)) return null;
  if (!readers.baselines) throw new QueryError('compare_to needs the baselines folder of the app');
  return findBaseline(readers.baselines, compareTo.slice(BASELINE_PREFIX.length));
}

/**
 * The rows a section shows under `limit`: the first ones, or when it cuts and some rows failed, the failed
 * ones first (in row order), then the first of the others: the call that broke is what a reader looks for.
 */
export function shownRows(section: readonly unknown[], limit: number): { indexes: number[]; failed: number } {
  const first = Array.from({ length: Math.min(limit, section.length) }, (_, index) => index);
  if (section.length <= limit) return { indexes: first, failed: 0 };
  const failed: number[] = [];
  const others: number[] = [];
  section.forEach((row, index) => ((row as { failed?: unknown } | null)?.failed === true ? failed : others).push(index));
  if (failed.length === 0) return { indexes: first, failed: 0 };
  return { indexes: [...failed, ...others].slice(0, limit), failed: failed.length };
}

/** `section` + `row`: that one row of the capture (default: the newest capture that has the section). */
async function showRow(store: Store, input: ShowInput): Promise<ShownRow> {
  const section = input.section ?? DEFAULT_SECTION;
  if (input.sections?.length) throw new QueryError('give either sections (the first rows of each) or section and row (one row whole), not both');
  if (input.row === undefined) {
    throw new QueryError(
      `section goes with row, the index of one row to return whole (e.g. {"section": ${JSON.stringify(section)}, "row": 0}); for the first rows of a section give sections`,
    );
  }
  let capture: Capture | null;
  if (input.id !== undefined) capture = await findCapture(store, input.id);
  else {
    const index = await store.index();
    capture = await newestCapture(store, index, (row) => (row.counts?.[section] ?? 0) > 0);
    if (!capture) {
      const note = index.length === 0 ? emptyStoreNote(store) : `None of the ${index.length} stored captures has ${section} rows.`;
      return { id: null, capture: null, section, total: 0, row: input.row, data: null, note };
    }
  }
  if (!(section in capture.sections)) throw new QueryError(`capture ${capture.id} has no section ${JSON.stringify(section)}`, sectionsOf(capture));
  const rows = rowsOfSection(capture.sections[section]);
  const index = input.row;
  if (!Number.isInteger(index) || index < 0 || index >= rows.length) {
    const range = rows.length === 0 ? 'it has no rows' : `rows are numbered 0 to ${rows.length - 1}`;
    throw new QueryError(`row ${JSON.stringify(index)} is not in section ${section} of capture ${capture.id}: ${range}`);
  }
  return {
    id: capture.id,
    capture: captureRef(capture),
    section,
    total: rows.length,
    row: index,
    data: clip(rows[index], FIELD_LIMITS),
    note: 'Strings over 4000 characters and bodies over 8000 are clipped with a marker saying how much was left out.',
  };
}
