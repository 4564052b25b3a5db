import type { Capture, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import type { BaselineStore } from '../baselines/BaselineStore';
import type { Baseline } from '../baselines/types';
import { diffCaptures } from '../diff/diffCaptures';
import { StoreEndpoints } from './storeEndpoints';
import { DEFAULT_THRESHOLD, type DiffResult, type DiffThreshold } from '../diff/Diff';
import { QueryError } from './QueryError';
import { checkInputSizes, shownInput } from './inputs';
import { findCapture } from './locate';

/** `compare_to` values that are not a capture id. */
export const PREVIOUS = 'previous';
export const BASELINE_PREFIX = 'baseline:';

export interface DiffInput {
  /** The earlier capture (with `after`), or the one to compare when a baseline or name chooses the other. */
  before?: string;
  after?: string;
  /** The newest two captures of this name, route or test title. */
  name?: string;
  /** A saved baseline as the earlier side. */
  baseline?: string;
  threshold?: Partial<DiffThreshold>;
}

/**
 * The two captures a diff compares, read from the store (and the baselines): two ids; the newest two of one
 * name or route; or a baseline and a capture (by default the newest one of the baseline's name).
 */
export async function queryDiff(
  store: Store,
  baselines: BaselineStore,
  input: DiffInput,
  endpoints: StoreEndpoints = new StoreEndpoints(store),
): Promise<DiffResult> {
  checkInputSizes(input);
  const threshold = thresholdOf(input.threshold);
  // Aligned by the endpoints the store's call sites vary (query/storeEndpoints.ts), as findings and groups read them.
  const { templates } = await endpoints.view();
  if (input.baseline !== undefined) {
    if (input.name !== undefined || (input.before !== undefined && input.after !== undefined))
      throw new QueryError("with a baseline give at most one capture id (default: the newest capture of the baseline's name)");
    const baseline = await findBaseline(baselines, input.baseline);
    const id = input.after ?? input.before;
    const after = id !== undefined ? await findCapture(store, id) : await newestOfName(store, baseline.capture.name, baseline.capture.id);
    return diffCaptures(baseline.capture, after, { threshold, baselines: { before: baseline.name }, templates });
  }
  if (input.name !== undefined) {
    if (input.before !== undefined || input.after !== undefined) throw new QueryError('give either two capture ids or a name, not both');
    const index = await store.index();
    const chosen = index.filter((row) => row.name === input.name || row.route === input.name);
    const [after, before] = await readNewest(store, chosen, 2);
    if (!after || !before) {
      throw new QueryError(
        `${chosen.length === 0 ? 'no capture' : 'only one capture'} named ${shownInput(input.name)} in the store: a diff by name needs two; names stored`,
        [...new Set(index.map((row) => row.name))].slice(0, 10),
      );
    }
    return diffCaptures(before, after, { threshold, templates });
  }
  if (input.before === undefined || input.after === undefined) throw new QueryError('give two capture ids, --name NAME, or --baseline NAME');
  return diffCaptures(await findCapture(store, input.before), await findCapture(store, input.after), { threshold, templates });
}

/** The capture a `compare_to` names for `capture`: `previous` (the run of the same name before it), `baseline:<name>`, or an id. */
export async function compareTarget(
  store: Store,
  baselines: BaselineStore,
  capture: Capture,
  compareTo: string,
): Promise<{ capture: Capture; baseline?: string }> {
  if (compareTo.startsWith(BASELINE_PREFIX)) {
    const name = compareTo.slice(BASELINE_PREFIX.length);
    const baseline = await findBaseline(baselines, name);
    return { capture: baseline.capture, baseline: name };
  }
  if (compareTo === PREVIOUS) {
    const index = await store.index();
    const earlier = index.filter((row) => row.name === capture.name && row.id !== capture.id && row.started_at <= capture.started_at);
    const [previous] = await readNewest(store, earlier, 1);
    if (!previous) throw new QueryError(`no earlier capture named ${shownInput(capture.name)} in the store to compare with`);
    return { capture: previous };
  }
  return { capture: await findCapture(store, compareTo) };
}

/** The baseline of that name, or a query error listing the names saved (or saying none is). */
export async function findBaseline(baselines: BaselineStore, name: string): Promise<Baseline> {
  const baseline = await baselines.find(name);
  if (baseline) return baseline;
  const garbled = await baselines.problem(name);
  if (garbled) throw new QueryError(`baseline ${shownInput(name)} ${garbled}: save it again (probe baseline save <id> ${name})`);
  const names = (await baselines.list()).map((entry) => entry.name);
  throw new QueryError(`no baseline named ${shownInput(name)}${names.length ? '' : ' (none is saved: probe baseline save <id> [name] keeps one)'}`, names);
}

/** The newest stored capture named `name` (other than the baseline's own), to compare with a baseline. */
export async function newestOfName(store: Store, name: string, exceptId: string): Promise<Capture> {
  const index = await store.index();
  const [capture] = await readNewest(
    store,
    index.filter((row) => row.name === name && row.id !== exceptId),
    1,
  );
  if (!capture) throw new QueryError(`no capture named ${shownInput(name)} in the store to compare with the baseline: give a capture id`);
  return capture;
}

/** The first `count` readable captures of these index rows (newest first): rows whose capture has gone are skipped. */
async function readNewest(store: Store, rows: readonly IndexRow[], count: number): Promise<Capture[]> {
  const out: Capture[] = [];
  for (const row of rows) {
    if (out.length === count) break;
    const capture = await store.find(row.id);
    if (capture) out.push(capture);
  }
  return out;
}

export function thresholdOf(given: Partial<DiffThreshold> | undefined): DiffThreshold {
  const ms = given?.ms ?? DEFAULT_THRESHOLD.ms;
  const percent = given?.percent ?? DEFAULT_THRESHOLD.percent;
  if (!Number.isFinite(ms) || ms < 0) throw new QueryError(`the duration threshold in ms must be a number 0 or more, got ${shownInput(ms)}`);
  if (!Number.isFinite(percent) || percent < 0)
    throw new QueryError(`the duration threshold in percent must be a number 0 or more, got ${shownInput(percent)}`);
  return { ms, percent };
}
