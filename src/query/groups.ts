import type { Store } from '../capture/Store';
import { QueryError } from './QueryError';
import { checkInputSizes, shownInput } from './inputs';
import { EVERY_CAPTURE, ROWS_MAX_LIMIT, captureRef, readSection, type CaptureRef, type RowsInput } from './rows';
import { rowMatcher } from './rowSelect';
import { templateEndpoints, type EndpointTemplates, type TemplateRow } from '../builder/endpointTemplates';
import { StoreEndpoints } from './storeEndpoints';
import type { RowItem } from './rowSelect';
import { elsewhere, withUnread, type Unread } from './unread';
import { CAPTURE_KEYS, GROUP_SORTS, groupKeyOf, groupRows, type GroupSort, type RowGroup } from './groupRows';

/** Few groups by default: an hour of a busy dev server answered in a few hundred tokens. */
export const GROUPS_DEFAULT_LIMIT = 10;

/** Named groupings offered in errors and descriptions; any row field (dotted) works too. */
export const GROUP_BY_NAMES = ['endpoint', 'host', 'status', 'method', 'route', 'capture_name'] as const;

export interface GroupsInput extends Omit<RowsInput, 'sort' | 'fields'> {
  /** `endpoint`, `host`, `status`, `method`, `route`, `capture_name`, or any row field (dotted). */
  group_by: string;
  /** A group field; default `count`. */
  sort?: string;
  /** Accepted only to say it does not apply. */
  fields?: string[];
}

export interface GroupsResult {
  /** The capture read; `*` across captures; null when none was found. */
  id: string | null;
  capture: CaptureRef | null;
  section: string;
  captures?: number;
  group_by: string;
  /** Rows in the section (of every capture read). */
  total: number;
  /** Rows that passed `where`, and so were grouped. */
  matched: number;
  /** How many groups there are; `returned` of them are listed. */
  group_count: number;
  returned: number;
  groups: RowGroup[];
  /** Stored captures with rows in the section that this answer did not read. */
  not_read?: Unread;
  note?: string;
}

/**
 * `probe-rows` with `group_by`: the rows the same inputs would read, filtered by `where`, summed up per
 * group (count, failed, p50/p95/max duration, bytes, first/last time, one example), sorted by a group
 * field (default count; `dir` default desc), the first `limit` groups.
 */
export async function queryGroups(
  store: Store,
  input: GroupsInput,
  now = Date.now() / 1000,
  endpoints: StoreEndpoints = new StoreEndpoints(store),
): Promise<GroupsResult> {
  checkInputSizes(input);
  const by = input.group_by;
  if (typeof by !== 'string' || by === '') throw new QueryError('group_by needs a field name', GROUP_BY_NAMES);
  if (input.fields?.length)
    throw new QueryError('fields does not apply with group_by: each group has key, count, failed, p50, p95, max, bytes, first, last, example');
  const limit = input.limit ?? GROUPS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > ROWS_MAX_LIMIT)
    throw new QueryError(`limit must be a whole number from 1 to ${ROWS_MAX_LIMIT}, got ${limit}`);
  const dir = input.dir ?? 'desc';
  if (dir !== 'asc' && dir !== 'desc') throw new QueryError(`dir ${shownInput(dir)} is not a direction`, ['asc', 'desc']);
  const sort = input.sort ?? 'count';
  if (!(GROUP_SORTS as readonly string[]).includes(sort))
    throw new QueryError(`sort ${shownInput(sort)} is not a group field (with group_by, sort orders the groups)`, GROUP_SORTS);

  const read = await readSection(store, { ...input, sort: undefined, fields: undefined }, now);
  if ('empty' in read) {
    const { rows: _rows, returned: _returned, ...rest } = read.empty;
    return { ...rest, group_by: by, group_count: 0, returned: 0, groups: [] };
  }
  const all = read.groups.flat();
  const across = read.capture === null;
  const matcher = rowMatcher(all, read.section, input.where, true);
  if (!(CAPTURE_KEYS as readonly string[]).includes(by)) matcher.check(by, 'group_by');
  const matched = all.filter(matcher.matches);
  const groups = groupRows(
    matched,
    by === 'endpoint' && read.section === 'http' ? endpointKeys(matched, (await endpoints.view()).templates) : groupKeyOf(by, matcher.read),
    sort as GroupSort,
    dir,
  );
  const notes: string[] = [];
  if (groups.length > limit) notes.push(`${groups.length - limit} more groups beyond limit ${limit}.`);
  const result: GroupsResult = {
    id: read.capture ? read.capture.id : EVERY_CAPTURE,
    capture: read.capture ? captureRef(read.capture) : null,
    section: read.section,
    ...(across ? { captures: read.groups.length } : {}),
    group_by: by,
    total: all.length,
    matched: matched.length,
    group_count: groups.length,
    returned: Math.min(limit, groups.length),
    groups: groups.slice(0, limit),
    ...(notes.length ? { note: notes.join(' ') } : {}),
  };
  return withUnread(result, read.unread, await elsewhere(store, read, input.where, matched.length));
}

/**
 * Calls grouped by endpoint as findings and `probe diff` see them: the path segment a call site varies folded to
 * `{id}` across every capture read and the store's recent ones (query/storeEndpoints.ts: a capture with one
 * `/products/SKU-1` call joins the others of its call site).
 */
function endpointKeys(items: readonly RowItem[], stored: EndpointTemplates): (item: RowItem) => unknown {
  const calls = items.filter((item) => isCall(item.row));
  const keys = new Map<RowItem, string>();
  const endpoints = templateEndpoints(
    calls.map((item) => item.row as TemplateRow),
    stored,
  );
  calls.forEach((item, i) => keys.set(item, endpoints[i]!));
  return (item) => keys.get(item) ?? (isCall(item.row) ? item.row.endpoint : null);
}

function isCall(row: unknown): row is TemplateRow {
  return row !== null && typeof row === 'object' && typeof (row as TemplateRow).endpoint === 'string';
}
