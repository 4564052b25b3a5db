import type { Capture } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import type { SnapshotStatus } from './Snapshot';
import { snapshotOfCapture } from './snapshotOfCapture';
import { compareSnapshots, sameCalls } from './compareSnapshots';
import { readSnapshotFile, snapshotPathOf } from './snapshotFiles';

/** Null for a capture that is not a test's, or whose runner named no test file. Reads one file; never throws. */
export function snapshotStatusOf(root: string, settings: ResolvedConfig['snapshots'], capture: Capture): SnapshotStatus | null {
  const testFile = capture.type === 'test' && typeof capture.meta?.test_file === 'string' ? capture.meta.test_file : null;
  if (!testFile) return null;
  const file = snapshotPathOf(testFile);
  const { snapshot, outside } = snapshotOfCapture(capture, settings, settings.hosts);
  const base = { file, test_file: testFile, ...(outside.length ? { outside } : {}) };
  let stored;
  try {
    stored = readSnapshotFile(root, file);
  } catch (error) {
    return { status: 'unreadable', ...base, error: (error as Error).message };
  }
  const before = stored && Object.hasOwn(stored.tests, capture.name) ? stored.tests[capture.name]! : null;
  if (!before) return { status: 'new', ...base };
  if (sameCalls(before, snapshot)) return { status: 'matches', ...base };
  return { status: 'differs', ...base, diff: compareSnapshots(capture.name, before, snapshot) };
}
