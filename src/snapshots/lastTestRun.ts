import type { Capture, IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';

/** The test captures `probe check` compares, and where they came from. */
export interface TestRun {
  /** `probe run`: one `probe run -- <command>`; `process group`: the preloaded processes of one command; `since`: `--since`. */
  source: 'probe run' | 'process group' | 'since';
  /** The run's id or process group (none for `since`). */
  id: string | null;
  /** When its first test started (epoch seconds; null when it has none). */
  started_at: number | null;
  captures: Capture[];
}

/**
 * The run a test capture belongs to: the id `probe run` gave it, else its process group on its host (captures
 * written before Probe noted either: its process).
 */
export function runKey(capture: Capture): { source: TestRun['source']; id: string } {
  const meta = capture.meta ?? ({} as Capture['meta']);
  if (typeof meta.run === 'string' && meta.run) return { source: 'probe run', id: meta.run };
  const group = typeof meta.process_group === 'string' ? meta.process_group : `pid:${meta.pid}`;
  return { source: 'process group', id: `${meta.hostname}/${group}` };
}

/**
 * "The last test run": the test captures of the run the newest test capture belongs to (a `probe run` or a
 * preloaded process group, whichever wrote a test last), or with `sinceMs` every test capture started within it.
 */
export async function lastTestRun(store: Store, options: { sinceMs?: number; now?: number } = {}): Promise<TestRun> {
  const rows = (await store.index()).filter((row) => row.type === 'test');
  if (options.sinceMs !== undefined) {
    const from = (options.now ?? Date.now()) / 1000 - options.sinceMs / 1000;
    const captures = await readAll(
      store,
      rows.filter((row) => row.started_at >= from),
    );
    return { source: 'since', id: null, started_at: firstStart(captures), captures };
  }
  const newest = rows.length ? await readAll(store, rows.slice(0, 1)) : [];
  if (!newest.length) return { source: 'process group', id: null, started_at: null, captures: [] };
  const key = runKey(newest[0]!);
  const captures = (await readAll(store, rows)).filter((capture) => {
    const other = runKey(capture);
    return other.source === key.source && other.id === key.id;
  });
  return { source: key.source, id: key.id, started_at: firstStart(captures), captures };
}

async function readAll(store: Store, rows: readonly IndexRow[]): Promise<Capture[]> {
  const out: Capture[] = [];
  for (const row of rows) {
    const capture = await store.find(row.id);
    if (capture) out.push(capture);
  }
  return out;
}

function firstStart(captures: readonly Capture[]): number | null {
  return captures.length ? Math.min(...captures.map((capture) => capture.started_at)) : null;
}
