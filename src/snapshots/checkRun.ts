import type { Capture } from '../capture/types';
import type { DiffResult } from '../diff/Diff';
import type { ResolvedConfig } from '../config/types';
import type { HostCall, SnapshotFile, TestSnapshot } from './Snapshot';
import type { TestRun } from './lastTestRun';
import { SNAPSHOT_VERSION } from './Snapshot';
import { setOwn } from '../util/setOwn';
import { snapshotOfCapture } from './snapshotOfCapture';
import { compareSnapshots, sameCalls } from './compareSnapshots';
import { exists, findSnapshotFiles, readSnapshotFile, removeSnapshotFile, snapshotPathOf, snapshotText, testFileOf, writeSnapshotFile } from './snapshotFiles';

export type TestVerdict = 'matches' | 'differs' | 'new' | 'obsolete';

/** One test as `probe check` found it. */
export interface CheckedTest {
  name: string;
  /** The test file, relative to the root. */
  file: string;
  snapshot_file: string;
  verdict: TestVerdict;
  /** The test's capture in the run (none for an obsolete test). */
  capture_id: string | null;
  /** What changed (a test that differs), or the calls an obsolete test's snapshot holds (all `removed`). */
  diff?: DiffResult;
  /** Calls to hosts outside `snapshots.hosts`. */
  outside?: HostCall[];
}

export interface CheckResult {
  run: { source: TestRun['source']; id: string | null; started_at: number | null; tests: number; since?: string };
  /** Exit code: 0 all match, 1 a test differs, is obsolete, is new under `ci`, or calls another host. */
  exit: 0 | 1;
  updated: boolean;
  ci: boolean;
  counts: Record<TestVerdict, number> & { outside: number; without_file: number };
  hosts: readonly string[];
  /** Tests whose captures name no test file (a runner that does not say it): not checked. */
  without_file: string[];
  tests: CheckedTest[];
  /** Snapshot files written and removed by `update`. */
  written: string[];
  removed: string[];
}

/**
 * `probe check`: each test of the run against its snapshot, obsolete snapshots of the test files the run covered
 * (and of test files that are gone), and the calls to other hosts. With `update`, snapshot files are rewritten
 * where they differ; a test calling another host is never written (its old snapshot, if any, is kept).
 */
export function checkRun(config: ResolvedConfig, run: TestRun, options: { update: boolean; ci: boolean; since?: string }): CheckResult {
  const root = config.root;
  const settings = config.snapshots;
  // Per test file, per name: the last attempt of a retried test (the newest capture of that name).
  const byFile = new Map<string, Map<string, Capture>>();
  const skipped = new Map<string, Set<string>>();
  const withoutFile: string[] = [];
  const ordered = [...run.captures].sort((a, b) => a.started_at - b.started_at || (a.id < b.id ? -1 : 1));
  for (const capture of ordered) {
    const file = typeof capture.meta?.test_file === 'string' ? capture.meta.test_file : null;
    if (!file) {
      withoutFile.push(capture.name);
      continue;
    }
    if (capture.status === 'skipped') {
      if (!skipped.has(file)) skipped.set(file, new Set());
      skipped.get(file)!.add(capture.name);
      continue;
    }
    if (!byFile.has(file)) byFile.set(file, new Map());
    byFile.get(file)!.set(capture.name, capture);
  }

  const tests: CheckedTest[] = [];
  const files = new Map<string, { file: SnapshotFile; before: string | null }>();
  const snapshotOf = (relative: string, testFile: string) => {
    let entry = files.get(relative);
    if (!entry) {
      const read = readSnapshotFile(root, relative);
      entry = { file: read ?? { probe_snapshot: SNAPSHOT_VERSION, file: testFile, tests: {} }, before: read ? snapshotText(read) : null };
      files.set(relative, entry);
    }
    return entry.file;
  };

  for (const [testFile, named] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const relative = snapshotPathOf(testFile);
    const stored = snapshotOf(relative, testFile);
    const seen = new Set([...named.keys(), ...(skipped.get(testFile) ?? [])]);
    for (const [name, capture] of [...named].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const { snapshot, outside } = snapshotOfCapture(capture, settings, settings.hosts);
      const before = Object.hasOwn(stored.tests, name) ? stored.tests[name]! : null;
      const test: CheckedTest = { name, file: testFile, snapshot_file: relative, verdict: 'new', capture_id: capture.id };
      if (outside.length) test.outside = outside;
      if (before) {
        test.verdict = sameCalls(before, snapshot) ? 'matches' : 'differs';
        if (test.verdict === 'differs') test.diff = compareSnapshots(name, before, snapshot);
      }
      tests.push(test);
      if (options.update && !outside.length && test.verdict !== 'matches') setOwn(stored.tests, name, snapshot);
    }
    for (const name of Object.keys(stored.tests).sort()) {
      if (seen.has(name)) continue;
      tests.push(obsolete(name, testFile, relative, stored.tests[name]!));
      if (options.update) delete stored.tests[name];
    }
  }

  // Snapshot files whose test file is gone: every test in them is obsolete.
  for (const relative of findSnapshotFiles(root)) {
    const testFile = testFileOf(relative);
    if (!testFile || files.has(relative) || exists(root, testFile)) continue;
    const stored = snapshotOf(relative, testFile);
    for (const name of Object.keys(stored.tests).sort()) tests.push(obsolete(name, testFile, relative, stored.tests[name]!));
    if (options.update) stored.tests = {};
  }

  const written: string[] = [];
  const removed: string[] = [];
  if (options.update) {
    for (const [relative, { file, before }] of files) {
      if (Object.keys(file.tests).length === 0) {
        if (before !== null) {
          removeSnapshotFile(root, relative);
          removed.push(relative);
        }
      } else if (snapshotText(file) !== before) {
        writeSnapshotFile(root, relative, file);
        written.push(relative);
      }
    }
  }

  const counts = { matches: 0, differs: 0, new: 0, obsolete: 0, outside: 0, without_file: withoutFile.length };
  for (const test of tests) {
    counts[test.verdict]++;
    if (test.outside) counts.outside++;
  }
  const failed = counts.outside > 0 || (!options.update && (counts.differs > 0 || counts.obsolete > 0 || (options.ci && counts.new > 0)));
  return {
    run: { source: run.source, id: run.id, started_at: run.started_at, tests: run.captures.length, ...(options.since ? { since: options.since } : {}) },
    exit: failed ? 1 : 0,
    updated: options.update,
    ci: options.ci,
    counts,
    hosts: settings.hosts,
    without_file: withoutFile,
    tests,
    written: written.sort(),
    removed: removed.sort(),
  };
}

function obsolete(name: string, file: string, relative: string, stored: TestSnapshot): CheckedTest {
  return { name, file, snapshot_file: relative, verdict: 'obsolete', capture_id: null, diff: compareSnapshots(name, stored, { calls: [] }) };
}
