import type { BaselineStore } from '../baselines/BaselineStore';
import type { BaselineEntry } from '../baselines/types';

/** The names `compare_to: "baseline:<name>"` takes, with what each was saved from. */
export const NO_BASELINES = 'No baseline is saved: in a shell, probe baseline save <id> [name] keeps one.';

/**
 * A listing answer with the saved baselines added (`probe-list {"baselines": true}`, `probe list --baselines`):
 * each one's name, the capture it was saved from (id, type, name, status, calls) and when.
 */
export async function withBaselines<T extends { note?: string }>(result: T, baselines: BaselineStore | undefined): Promise<T & { baselines: BaselineEntry[] }> {
  const entries = baselines ? await baselines.list() : [];
  if (entries.length > 0) return { ...result, baselines: entries };
  return { ...result, baselines: entries, note: result.note ? `${result.note} ${NO_BASELINES}` : NO_BASELINES };
}
