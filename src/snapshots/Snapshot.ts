import type { DiffResult } from '../diff/Diff';

/**
 * The snapshot format (docs/snapshots.md): what `probe check --update` writes beside a test file, in
 * `__probe__/<file>.json`, and `probe check` compares each test's calls with. Plain JSON, keys in a fixed order,
 * nothing that changes from one run of an unchanged suite to the next.
 */

/** The format's version, written first in every file. */
export const SNAPSHOT_VERSION = 1;

/** One call a test made, as a snapshot keeps it. */
export interface SnapshotCall {
  method: string;
  /** The URL with ids folded to `{id}` as the capture's endpoint folds them, a loopback port as `{port}`, the query sorted. */
  url: string;
  /** Null when no response arrived (then `failure` says why). */
  status: number | null;
  /** A call without a response: its error code (`ECONNREFUSED`), else its error class. */
  failure?: string;
  /** The code line that made it (`file:line`): shown, never compared. */
  line: string | null;
  /** The chosen request headers (masked as the capture holds them) and the body's fields. */
  request?: { headers?: Record<string, string>; body?: unknown };
  /** The response as its capture shows it (JSON). */
  response?: { body?: unknown };
}

export interface TestSnapshot {
  calls: SnapshotCall[];
}

/** One file of snapshots: the tests of one test file, by their full names (`suite > case`), sorted. */
export interface SnapshotFile {
  probe_snapshot: typeof SNAPSHOT_VERSION;
  /** The test file, relative to the project root. */
  file: string;
  tests: Record<string, TestSnapshot>;
}

/** How snapshots are made (the `snapshots` settings). */
export interface SnapshotOptions {
  /** Request headers kept (lower case). */
  headers: readonly string[];
  /** JSON paths (`$.a.b`, `$.items[*].id`) and header names left out. */
  ignore: readonly string[];
  bodies: 'values' | 'shapes';
}

/** A call to a host the test may not reach (`snapshots.hosts`). */
export interface HostCall {
  url: string;
  line: string | null;
}

/** A test capture against its committed snapshot, as the dashboard and probe-show tell it. */
export interface SnapshotStatus {
  /** `unreadable`: the snapshot file is not one (`error` says why). */
  status: 'matches' | 'differs' | 'new' | 'unreadable';
  /** The snapshot file, relative to the root. */
  file: string;
  test_file: string;
  /** What changed from the snapshot to this capture (`differs`). */
  diff?: DiffResult;
  /** Calls to hosts outside `snapshots.hosts`: `probe check` fails on them. */
  outside?: HostCall[];
  error?: string;
}
