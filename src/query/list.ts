import { emptyStoreNote } from './emptyStore';
import type { CaptureType, IndexRow, SamplingMeta } from '../capture/types';
import { samplingNote, samplingOf } from './sampling';
import type { Store } from '../capture/Store';
import { QueryError } from './QueryError';
import { checkInputSizes } from './inputs';
import { ANSWER_BUDGET, ROW_LIMITS, clip, fitRows } from './clip';
import { KNOWN_SECTIONS, sectionsInIndex } from './locate';
import { parseSince } from './since';
import { groupByRoute, type RouteGroup } from './routeGroups';
import { StoreFindings } from './findings';
import { shownFindings } from '../findings/floor';

/** The rows whose captures have findings (`want` true) or none, each with its count as `findings`. */
async function withFindings(store: Store, index: IndexRow[], rows: IndexRow[], want: boolean, given?: StoreFindings): Promise<IndexRow[]> {
  const reader = given ?? new StoreFindings(store);
  const out: IndexRow[] = [];
  for (const row of rows) {
    const capture = await store.find(row.id);
    if (!capture) continue;
    const count = shownFindings(await reader.of(capture, index)).shown.length;
    if (count > 0 === want) out.push({ ...row, findings: count } as IndexRow);
  }
  return out;
}

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 500;
export const CAPTURE_TYPES: readonly CaptureType[] = ['request', 'job', 'command', 'test'];

export interface ListInput {
  /** Only captures with at least one row in each of these sections. */
  has?: string[];
  has_errors?: boolean;
  /** `30s`, `15m`, `2h`, `1d`: only captures started that long ago or later. */
  since?: string;
  type?: string;
  /** Only captures of this route template (`/api/users/:id`). */
  route?: string;
  /** Only captures recorded by this service (`service` in the index row). */
  service?: string;
  /** Only captures with findings (true) or without (false); each returned capture then carries its count. */
  has_findings?: boolean;
  /** `route`: also count the matching captures per route template. */
  group_by?: string;
  limit?: number;
}

export interface ListResult {
  /** Captures in the store. */
  total: number;
  matched: number;
  returned: number;
  /** Index rows (docs/capture-format.md), newest first. */
  captures: IndexRow[];
  /** When the stored captures were sampled: the newest rate and ceiling, and the root units left out in all. */
  sampling?: SamplingMeta;
  /** With `group_by: 'route'`: every matching capture counted per route, the most captured first. */
  groups?: RouteGroup[];
  note?: string;
}

/** Index rows matching the filters, newest first. `now` is epoch seconds (a parameter so tests can fix it). */
export async function queryList(
  store: Store,
  input: ListInput = {},
  now = Date.now() / 1000,
  findings?: StoreFindings,
  budget = ANSWER_BUDGET,
): Promise<ListResult> {
  checkInputSizes(input);
  const limit = input.limit ?? LIST_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT)
    throw new QueryError(`limit must be a whole number from 1 to ${LIST_MAX_LIMIT}, got ${limit}`);
  if (input.type !== undefined && !(CAPTURE_TYPES as readonly string[]).includes(input.type)) {
    throw new QueryError(`type ${JSON.stringify(input.type)} is not a capture type`, CAPTURE_TYPES);
  }
  if (input.group_by !== undefined && input.group_by !== 'route')
    throw new QueryError(`group_by ${JSON.stringify(input.group_by)} is not a grouping`, ['route']);
  const after = input.since !== undefined ? now - parseSince(input.since) : null;
  const index = await store.index();
  const has = input.has ?? [];
  if (index.length > 0) {
    const present = new Set([...KNOWN_SECTIONS, ...sectionsInIndex(index)]);
    for (const name of has) {
      if (!present.has(name)) throw new QueryError(`no capture has a section ${JSON.stringify(name)}`, [...present]);
    }
  }
  let matched = index.filter(
    (row) =>
      (input.type === undefined || row.type === input.type) &&
      (input.has_errors === undefined || row.has_errors === input.has_errors) &&
      (after === null || row.started_at >= after) &&
      (input.route === undefined || row.route === input.route) &&
      (input.service === undefined || row.service === input.service) &&
      has.every((name) => (row.counts?.[name] ?? 0) > 0),
  );
  if (input.has_findings !== undefined) matched = await withFindings(store, index, matched, input.has_findings, findings);
  const fitted = fitRows(
    matched.slice(0, limit).map((row) => clip(row, ROW_LIMITS) as IndexRow),
    budget,
  );
  const notes: string[] = [];
  const sampling = samplingOf(index);
  if (sampling) notes.push(samplingNote(sampling));
  if (index.length === 0) notes.push(emptyStoreNote(store));
  if (matched.length > limit) notes.push(`${matched.length - limit} more matching captures beyond limit ${limit}.`);
  if (fitted.left_out > 0) notes.push(`${fitted.left_out} captures left out to keep the answer short.`);
  return {
    total: index.length,
    matched: matched.length,
    returned: fitted.rows.length,
    captures: fitted.rows,
    ...(sampling ? { sampling } : {}),
    ...(input.group_by === 'route' ? { groups: groupByRoute(matched) } : {}),
    ...(notes.length ? { note: notes.join(' ') } : {}),
  };
}
